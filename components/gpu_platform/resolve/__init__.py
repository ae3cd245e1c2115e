"""From validated arguments to resolved objects, with every check written once.

Both paths use these functions: the stack file (``gpu_platform.stack.load_platform``) and each
component's plan function. Only where a problem is filed differs.
"""
