class GRU(Module):
  __parameters__ = ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", ]
  __buffers__ = []
  weight_ih_l0 : Tensor
  weight_hh_l0 : Tensor
  bias_ih_l0 : Tensor
  bias_hh_l0 : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torch.nn.modules.rnn.___torch_mangle_39.GRU,
    input: Tensor,
    h: Tensor) -> Tuple[Tensor, Tensor]:
    bias_hh_l0 = self.bias_hh_l0
    bias_ih_l0 = self.bias_ih_l0
    weight_hh_l0 = self.weight_hh_l0
    weight_ih_l0 = self.weight_ih_l0
    _0 = [weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0]
    o, _1 = torch.gru(input, h, _0, True, 1, 0., False, False, True)
    return (o, _1)
