class Stacked(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  lstm : __torch__.torch.nn.modules.rnn.LSTM
  bi : __torch__.torch.nn.modules.rnn.___torch_mangle_60.LSTM
  def forward(self: __torch__.Stacked,
    x: Tensor,
    h0: Tensor,
    c0: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    bi = self.bi
    lstm = self.lstm
    _0, _1, _2, = (lstm).forward(x, )
    input = torch.transpose(_0, 0, 1)
    _3, _4, _5, = (bi).forward(input, h0, c0, )
    return (_3, _1, _2, _4, _5)
