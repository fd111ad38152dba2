from . import utils  # triggers monkey-patch on torch.randn

