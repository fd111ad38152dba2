# expect: pass
class ModelNew:
    def forward(self, x):
        return [v + v + 1.0 for v in x]
