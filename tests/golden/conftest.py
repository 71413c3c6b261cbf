# tests/golden/expected/ is generator output kept for comparison (tests/test_codegen.py), not a
# test suite: its generated test_*.py modules look formats up in the registry, which does not
# know the golden keys.
collect_ignore = ["expected"]
