"""Measure model state and saved activations of a small Llama-style decoder on CPU, beside the
sizing engine's estimates for the same shape.

Needs PyTorch (CPU build is enough); not a test dependency. Run:

    python -m bench.model_state_cpu

1. Model state: one real AdamW step in the mixed-precision layout the ZeRO paper counts (bf16 weights
   and grads, fp32 master weights + Adam m and v), and in plain fp32. Bytes are summed over the actual
   tensors (params, .grad, optimizer state) and compared with 16 B/param.
2. Activations: bytes of every tensor autograd saves for the backward pass of one bf16 decoder layer
   (torch.autograd.graph.saved_tensors_hooks, de-duplicated by storage), compared with s·b·h·c from
   ``solver.sizing.activation_coefficient``.
"""

from __future__ import annotations

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:  # pragma: no cover
    print("PyTorch is not installed; nothing to measure.")
    raise SystemExit(0) from None

from procure.models.project import Workload  # noqa: E402
from procure.solver.sizing import activation_coefficient, zero_model_state_gb  # noqa: E402

VOCAB, HIDDEN, HEADS, KV_HEADS, FFN, LAYERS = 4096, 512, 8, 8, 1376, 4
SEQ, BATCH = 256, 2


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6).to(x.dtype))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        hd = HIDDEN // HEADS
        self.n1, self.n2 = RMSNorm(HIDDEN), RMSNorm(HIDDEN)
        self.q = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.k = nn.Linear(HIDDEN, KV_HEADS * hd, bias=False)
        self.v = nn.Linear(HIDDEN, KV_HEADS * hd, bias=False)
        self.o = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.gate = nn.Linear(HIDDEN, FFN, bias=False)
        self.up = nn.Linear(HIDDEN, FFN, bias=False)
        self.down = nn.Linear(FFN, HIDDEN, bias=False)

    def forward(self, x):
        b, s, _ = x.shape
        hd = HIDDEN // HEADS
        y = self.n1(x)
        q = self.q(y).view(b, s, HEADS, hd).transpose(1, 2)
        k = self.k(y).view(b, s, KV_HEADS, hd).transpose(1, 2)
        v = self.v(y).view(b, s, KV_HEADS, hd).transpose(1, 2)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, HIDDEN))
        y = self.n2(x)
        return x + self.down(F.silu(self.gate(y)) * self.up(y))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, HIDDEN)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = RMSNorm(HIDDEN)
        self.head = nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, ids):
        x = self.emb(ids)
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x))


def nbytes(tensors) -> int:
    return sum(t.numel() * t.element_size() for t in tensors if t is not None)


def model_state_mixed() -> tuple[int, dict[str, int]]:
    torch.manual_seed(0)
    model = Decoder().to(torch.bfloat16)
    params = list(model.parameters())
    master = [p.detach().float().clone().requires_grad_(True) for p in params]
    opt = torch.optim.AdamW(master, lr=1e-4)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ))
    loss = F.cross_entropy(model(ids).float().view(-1, VOCAB), ids.view(-1))
    loss.backward()
    for m, p in zip(master, params, strict=True):
        m.grad = p.grad.float()
    opt.step()
    for m, p in zip(master, params, strict=True):  # copy the update back to the bf16 weights
        p.data.copy_(m.data)
        m.grad = None  # the fp32 grad copy is transient (freed per bucket in real frameworks)
    state = [t for s in opt.state.values() for k, t in s.items() if k != "step"]
    n = sum(p.numel() for p in params)
    return n, {
        "bf16 weights": nbytes(params),
        "bf16 grads": nbytes(p.grad for p in params),
        "fp32 master": nbytes(master),
        "Adam m+v (fp32)": nbytes(state),
    }


def model_state_fp32() -> tuple[int, dict[str, int]]:
    torch.manual_seed(0)
    model = Decoder()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ))
    F.cross_entropy(model(ids).view(-1, VOCAB), ids.view(-1)).backward()
    opt.step()
    params = list(model.parameters())
    state = [t for s in opt.state.values() for k, t in s.items() if k != "step"]
    return sum(p.numel() for p in params), {
        "fp32 weights": nbytes(params),
        "fp32 grads": nbytes(p.grad for p in params),
        "Adam m+v (fp32)": nbytes(state),
    }


def saved_activation_bytes() -> tuple[int, int]:
    """(bytes of activation tensors saved for backward, of which fp32 copies made by the unfused
    RMSNorm). Weight-shaped tensors (transposed weight copies some CPU kernels save) are excluded:
    they scale with the parameters, not with s·b."""
    torch.manual_seed(0)
    blk = Block().to(torch.bfloat16)
    x = torch.randn(BATCH, SEQ, HIDDEN, dtype=torch.bfloat16, requires_grad=True)
    params = {p.untyped_storage().data_ptr() for p in blk.parameters()}
    seen: dict[int, tuple[int, bool]] = {}

    def pack(t):
        ptr = t.untyped_storage().data_ptr()
        if ptr not in params and t.dim() >= 3 and t.shape[0] == BATCH:
            seen[ptr] = (t.untyped_storage().nbytes(), t.dtype == torch.float32 and t.shape[-1] == HIDDEN)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        blk(x).sum().backward()
    total = sum(n for n, _ in seen.values())
    upcasts = sum(n for n, f in seen.values() if f)
    return total, upcasts


def main() -> None:
    print(
        f"torch {torch.__version__}; decoder: {LAYERS} layers, h={HIDDEN}, heads={HEADS}, ffn={FFN} (SwiGLU), vocab={VOCAB}"
    )
    for title, fn in (
        ("mixed precision (bf16 + fp32 master, AdamW)", model_state_mixed),
        ("plain fp32 AdamW", model_state_fp32),
    ):
        n, parts = fn()
        total = sum(parts.values())
        est = zero_model_state_gb(n, 0, 1) * 1e9
        print(f"\n{title}: {n:,} params")
        for k, v in parts.items():
            print(f"  {k:<18} {v:>12,} B  ({v / n:.1f} B/param)")
        print(f"  {'measured total':<18} {total:>12,} B  ({total / n:.2f} B/param)")
        print(f"  {'estimate (16 B/P)':<18} {est:>12,.0f} B  (measured/estimate {total / est:.3f})")
    spec = dict(
        params_b=0.017,
        layers=1,
        hidden_size=HIDDEN,
        heads=HEADS,
        kv_heads=KV_HEADS,
        ffn_hidden_size=FFN,
        vocab_size=VOCAB,
    )
    w = Workload.model_validate(
        dict(name="bench", model=spec, method="full", tokens_b=1, seq_len=SEQ, deadline_days=10)
    )
    c = activation_coefficient(w)
    est = c * SEQ * BATCH * HIDDEN
    got, upcasts = saved_activation_bytes()
    sbh = SEQ * BATCH * HIDDEN
    print(f"\nsaved activations of one bf16 decoder layer (SwiGLU, SDPA attention), s={SEQ}, b={BATCH}:")
    print(f"  measured                      {got:>12,} B = {got / sbh:.1f}·sbh")
    print(
        f"  of which fp32 norm upcasts    {upcasts:>12,} B = {upcasts / sbh:.1f}·sbh (a fused RMSNorm kernel saves only its bf16 input)"
    )
    print(f"  measured without the upcasts  {got - upcasts:>12,} B = {(got - upcasts) / sbh:.1f}·sbh")
    print(
        f"  estimate c·sbh, c = {c:.1f}      {est:>12,.0f} B (measured without upcasts / estimate {(got - upcasts) / est:.3f})"
    )


if __name__ == "__main__":
    main()
