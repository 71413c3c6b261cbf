import os
import sys

from wiremap.cli import main

try:
    code = main()
    sys.stdout.flush()
except BrokenPipeError:  # `wiremap translate ... | head`: the reader left; not an error of ours
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    code = 0
raise SystemExit(code)
