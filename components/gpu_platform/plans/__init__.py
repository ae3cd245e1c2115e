"""Pure plans: what each component will create, decided from resolved objects before anything exists.

Each ``plan_<component>(args)`` checks a component's arguments and returns its plan; the matching
``<component>_plan(...)`` builds the same plan from objects the stack layer has already resolved.
"""
