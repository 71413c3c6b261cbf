import os
import sys

try:
    from wiremap.cli import main

    code = main()
    sys.stdout.flush()
except BrokenPipeError:  # `wiremap translate ... | head`: the reader left; not an error of ours
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    code = 0
except KeyboardInterrupt:  # Ctrl-C before main() took over (while importing): no traceback either
    code = 130
raise SystemExit(code)
