import sys

# Where PYTHONDONTWRITEBYTECODE is set (this project's CI machines), every worker of
# every run compiled pymem and assert-rewrote all test modules again (~2.5 s a
# process); the caches go to __pycache__ (git-ignored) like any import's.
sys.dont_write_bytecode = False
