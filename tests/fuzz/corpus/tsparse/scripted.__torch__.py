class Scripted(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  scale : float
  conv : __torch__.torch.nn.modules.conv.___torch_mangle_64.Conv2d
  bn : __torch__.torch.nn.modules.batchnorm.___torch_mangle_65.BatchNorm2d
  pool : __torch__.torch.nn.modules.pooling.___torch_mangle_66.MaxPool2d
  fc : __torch__.torch.nn.modules.linear.___torch_mangle_67.Linear
  def forward(self: __torch__.Scripted,
    x: Tensor) -> Tensor:
    pool = self.pool
    bn = self.bn
    conv = self.conv
    _0 = __torch__.torch.nn.functional.relu((bn).forward((conv).forward(x, ), ), False, )
    y = (pool).forward(_0, )
    y0 = torch.view(y, [torch.size(y, 0), -1])
    fc = self.fc
    _1 = (fc).forward(y0, )
    scale = self.scale
    return torch.add(torch.mul(_1, scale), 1.)
