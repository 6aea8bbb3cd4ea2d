class ConvTranspose1d(Module):
  __parameters__ = ["weight", "bias", ]
  __buffers__ = []
  weight : Tensor
  bias : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torch.nn.modules.conv.ConvTranspose1d,
    input: Tensor) -> Tensor:
    bias = self.bias
    weight = self.weight
    _0 = torch._convolution(input, weight, bias, [2], [0], [1], True, [0], 1, False, False, True, True)
    return _0
