# Never finishes importing.
# expect: timeout
import time

while True:
    time.sleep(1)
