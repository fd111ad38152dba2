# A torch-free problem for the stand-in program worker
# (tests/programs/standin/kbench_program_worker.py): y = 2x + 1 over a flat
# list of floats.
class Model:
    def forward(self, x):
        return [2.0 * v + 1.0 for v in x]
