"""Tests that plan and check every project in examples/."""
