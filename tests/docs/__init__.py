"""Tests that check docs/ against the code."""
