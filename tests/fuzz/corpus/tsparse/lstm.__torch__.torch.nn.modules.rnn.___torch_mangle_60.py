class LSTM(Module):
  __parameters__ = ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0", "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse", ]
  __buffers__ = []
  weight_ih_l0 : Tensor
  weight_hh_l0 : Tensor
  bias_ih_l0 : Tensor
  bias_hh_l0 : Tensor
  weight_ih_l0_reverse : Tensor
  weight_hh_l0_reverse : Tensor
  bias_ih_l0_reverse : Tensor
  bias_hh_l0_reverse : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torch.nn.modules.rnn.___torch_mangle_60.LSTM,
    input: Tensor,
    h0: Tensor,
    c0: Tensor) -> Tuple[Tensor, Tensor, Tensor]:
    bias_hh_l0_reverse = self.bias_hh_l0_reverse
    bias_ih_l0_reverse = self.bias_ih_l0_reverse
    weight_hh_l0_reverse = self.weight_hh_l0_reverse
    weight_ih_l0_reverse = self.weight_ih_l0_reverse
    bias_hh_l0 = self.bias_hh_l0
    bias_ih_l0 = self.bias_ih_l0
    weight_hh_l0 = self.weight_hh_l0
    weight_ih_l0 = self.weight_ih_l0
    _0 = [h0, c0]
    _1 = [weight_ih_l0, weight_hh_l0, bias_ih_l0, bias_hh_l0, weight_ih_l0_reverse, weight_hh_l0_reverse, bias_ih_l0_reverse, bias_hh_l0_reverse]
    _2, _3, _4 = torch.lstm(input, _0, _1, True, 1, 0., False, True, True)
    return (_2, _3, _4)
