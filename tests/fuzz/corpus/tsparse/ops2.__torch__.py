class Ops2(Module):
  __parameters__ = ["w", ]
  __buffers__ = []
  w : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  prelu : __torch__.torch.nn.modules.activation.PReLU
  inorm : __torch__.torch.nn.modules.instancenorm.InstanceNorm2d
  emb : __torch__.torch.nn.modules.sparse.Embedding
  ct1 : __torch__.torch.nn.modules.conv.ConvTranspose1d
  def forward(self: __torch__.Ops2,
    x: Tensor,
    idx: Tensor) -> Tuple[Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor, Tensor]:
    ct1 = self.ct1
    w = self.w
    emb = self.emb
    inorm = self.inorm
    prelu = self.prelu
    _0 = (inorm).forward((prelu).forward(x, ), )
    _1 = [_0, torch.mul(_0, CONSTANTS.c0), torch.sub(_0, CONSTANTS.c1), torch.abs(_0)]
    _2 = torch.pixel_shuffle(torch.cat(_1, 1), 2)
    _3 = torch.unbind(torch.narrow(_0, 2, 1, 2), 2)
    a, b, = _3
    _4 = torch.stack([a, b, torch.mul(a, b)], 1)
    _5 = (emb).forward(idx, )
    _6 = torch.matmul(_5, w)
    _7 = torch.zeros([5], dtype=None, layout=None, device=torch.device("cpu"), pin_memory=False)
    _8 = torch.addmm(_7, torch.select(_5, 0, 0), w)
    _9 = torch.add(_6, _8)
    input = torch.flatten(_0, 2)
    _10 = torch.max_pool1d(input, [3], annotate(List[int], []), [0], [1])
    _11 = torch.avg_pool1d(input, [3], [3], [0])
    input0 = torch.add(_10, _11)
    _12 = torch.upsample_nearest1d(input0, None, [2.])
    input1 = torch.adaptive_avg_pool1d(_12, [6])
    _13 = (ct1).forward(input1, )
    _14 = torch.pad(x, [2, 2, 1, 1], "replicate")
    r = torch.add(_14, CONSTANTS.c2)
    _15 = torch.amax(r, [2, 3])
    _16 = torch.div(torch.sum(r), CONSTANTS.c3)
    _17 = torch.sub(_15, _16)
    _18 = torch.ones_like(x, dtype=6, layout=0, device=torch.device("cpu"), pin_memory=False)
    _19 = torch.add(_17, torch.mean(_18))
    _20 = torch.argmax(torch.flatten(_0, 1), 1, True)
    _21 = torch.clamp(torch.softplus(torch.elu(_0, 1.)), None, 2.)
    _22 = torch.unsqueeze(torch.squeeze(_21, 0), 1)
    _23 = torch.slice(x, 0, 0, 9223372036854775807)
    _24 = torch.to(torch.select(_23, 1, -1), 6)
    _25 = torch.arange(6, dtype=6, layout=None, device=torch.device("cpu"), pin_memory=False)
    _26 = (_2, _4, _9, _13, _19, _20, _22, torch.mul(_24, _25))
    return _26
