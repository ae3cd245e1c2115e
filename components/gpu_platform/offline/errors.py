"""Errors the plan reports as bad input (exit 2) rather than as a failed program."""


class PlanInputError(ValueError):
    """A project, stack file, config file or environment the plan cannot use; one line, no traceback."""
