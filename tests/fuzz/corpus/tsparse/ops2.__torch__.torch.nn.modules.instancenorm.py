class InstanceNorm2d(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = []
  weight : Tensor
  bias : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torch.nn.modules.instancenorm.InstanceNorm2d,
    argument_1: Tensor) -> Tensor:
    bias = self.bias
    weight = self.weight
    y = torch.instance_norm(argument_1, weight, bias, None, None, True, 0.10000000000000001, 1.0000000000000001e-05, True)
    return y
