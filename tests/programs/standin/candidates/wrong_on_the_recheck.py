# expect: wrong_answer (right at the three cases it is checked at, wrong from
# its fourth call on: the recheck's, on inputs from a secret seed)
calls = [0]


class ModelNew:
    def forward(self, x):
        calls[0] += 1
        if calls[0] > 3:
            return [2.0 * v for v in x]
        return [2.0 * v + 1.0 for v in x]
