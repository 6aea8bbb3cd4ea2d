class MultiOut(Module):
  __parameters__ = []
  __buffers__ = []
  training : bool
  _is_full_backward_hook : Optional[bool]
  conv : __torch__.torch.nn.modules.conv.___torch_mangle_38.Conv1d
  gru : __torch__.torch.nn.modules.rnn.___torch_mangle_39.GRU
  conv2 : __torch__.torch.nn.modules.conv.___torch_mangle_40.Conv2d
  def forward(self: __torch__.MultiOut,
    x: Tensor,
    h: Tensor) -> Tuple[Tuple[Tensor, Tensor, Tensor, Tensor], Tuple[, Tensor], Tensor]:
    conv2 = self.conv2
    gru = self.gru
    conv = self.conv
    _0 = (conv).forward(x, )
    _1, b, d, e, = torch.split(_0, 4, 1)
    _2 = torch.sigmoid(b)
    _3 = torch.mul(d, CONSTANTS.c0)
    _4 = torch.sub(e, CONSTANTS.c1)
    _5 = torch.chunk(torch.transpose(_0, 1, 2), 2, 2)
    input, _6, = _5
    _7, _8, = (gru).forward(input, h, )
    _9 = torch.sigmoid(_7)
    input0 = tt0 = torch.unsqueeze(_7, 1)
    _10 = (conv2).forward(input0, )
    return ((_1, _2, _3, _4), (_8, _9), _10)
