class Embedding(Module):
  __parameters__ = ["weight", ]
  __buffers__ = []
  weight : Tensor
  training : bool
  _is_full_backward_hook : Optional[bool]
  def forward(self: __torch__.torch.nn.modules.sparse.Embedding,
    idx: Tensor) -> Tensor:
    weight = self.weight
    return torch.embedding(weight, idx)
