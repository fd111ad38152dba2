# expect: input_modified (writes its result over its input)
class ModelNew:
    def forward(self, x):
        for i, v in enumerate(x):
            x[i] = 2.0 * v + 1.0
        return list(x)
