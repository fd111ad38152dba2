# Ends its process while importing.
# expect: runtime_error
import os

os._exit(7)
