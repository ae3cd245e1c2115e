"""Tests of the repository itself: packaging, dependency floors, CI workflows, vendored upstream data."""
