# Kills its process with SIGSEGV while importing.
# expect: runtime_error
import os
import signal

os.kill(os.getpid(), signal.SIGSEGV)
