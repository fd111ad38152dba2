# expect: wrong_answer (forgets the shift)
class ModelNew:
    def forward(self, x):
        return [2.0 * v for v in x]
