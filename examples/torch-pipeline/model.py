"""A small GPT-style decoder, split into pipeline stages.

Stage 0 holds the token and position embeddings and the first blocks, the
last stage the final blocks, the final LayerNorm, the LM head and the loss;
the stages in between hold blocks only, so the stages' work differs (as in
real pipelines, where the first and last stages carry the embeddings and
the head).
"""
import torch
from torch import nn


class Block(nn.Module):
    """Pre-LayerNorm decoder block: causal self-attention, then a GELU MLP."""

    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.act = nn.GELU()
        self.proj = nn.Linear(4 * d, d)

    def forward(self, x):
        L = x.shape[1]
        mask = torch.triu(torch.ones(L, L, dtype=torch.bool), diagonal=1)
        h = self.ln1(x)
        a, _ = self.attn(h, h, h, attn_mask=mask, need_weights=False)
        x = x + a
        return x + self.proj(self.act(self.fc(self.ln2(x))))


class Embed(nn.Module):
    def __init__(self, vocab, d, seq):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)

    def forward(self, ids):
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        return self.tok(ids) + self.pos(positions)


class Head(nn.Module):
    """Final LayerNorm, LM head and the next-token cross-entropy."""

    def __init__(self, vocab, d):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.out = nn.Linear(d, vocab)

    def forward(self, x, targets):
        logits = self.out(self.ln(x))
        return nn.functional.cross_entropy(
            logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


class StageModule(nn.Module):
    """One pipeline stage: [Embed] blocks [Head]."""

    def __init__(self, index, stages, cfg):
        super().__init__()
        torch.manual_seed(1234 + index)
        per = cfg["layers"] // stages
        self.embed = Embed(cfg["vocab"], cfg["d"], cfg["seq"]) if index == 0 else None
        self.blocks = nn.Sequential(*[Block(cfg["d"], cfg["heads"])
                                      for _ in range(per)])
        self.head = Head(cfg["vocab"], cfg["d"]) if index == stages - 1 else None

    def forward(self, x, targets=None):
        if self.embed is not None:
            x = self.embed(x)
        x = self.blocks(x)
        if self.head is not None:
            return self.head(x, targets)
        return x


CONFIG = {"vocab": 128, "d": 32, "heads": 2, "seq": 16, "layers": 4,
          "microbatch_size": 2}
