"""Yandex Cloud's facts: its profile and machine table."""
