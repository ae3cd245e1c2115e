"""``gpu-platform verify``: read a live cluster and compare it with the stack's plan.

Data flows one way: the expectation (``expected``: what the plan says the cluster holds, from the same spec and
plan ``gpu-platform plan`` makes), a snapshot of the cluster (``reader``: plain API objects), the comparison
(``findings``: a pure function of the two), and the report (``report``: a table and JUnit XML).
"""
