# expect: wrong_answer (right while checked, wrong on the calls it is timed on:
# the timed calls' outputs are judged too)
calls = [0]


class ModelNew:
    def forward(self, x):
        calls[0] += 1
        if calls[0] > 6:
            return [0.0 for _ in x]
        return [2.0 * v + 1.0 for v in x]
