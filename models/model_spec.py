"""Transformer architectures: the numbers sizing needs, and the bundled presets.

``ffn_hidden_size`` is the FFN width one token activates: the dense ``intermediate_size``, or for a
mixture-of-experts model (n_shared + top_k) · moe_intermediate_size. Presets carry their config source.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from pathlib import Path

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator

from procure.common.errors import InputError, Problem, unknown_choice
from procure.common.text import clean_name
from procure.fileio.limits import MAX_PARAMS_B
from procure.fileio.yamlio import line_of, load_yaml

from .validation import InputModel, problems_from

#: an inline model's params_b (active_params_b for a mixture of experts) must lie within this factor of
#: the count its shape implies (``ModelSpec.shape_params``): room for tied embeddings, a plain MLP or
#: another attention layout, none for a field in the wrong unit or a swapped pair
PARAMS_FACTOR = 3


class ModelSpec(InputModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str | None = Field(default=None, max_length=200, description="preset id, when the model came from a preset")
    params_b: float = Field(gt=0, le=MAX_PARAMS_B, description="total parameters, billions")
    active_params_b: float | None = Field(
        default=None, gt=0, description="parameters active per token, billions (mixture-of-experts); default: params_b"
    )
    layers: int = Field(gt=0, le=100_000)
    hidden_size: int = Field(gt=0, le=10_000_000)
    heads: int = Field(gt=0, le=1_000_000)
    kv_heads: int | None = Field(
        default=None, gt=0, description="key/value heads (grouped-query attention); default: heads"
    )
    ffn_hidden_size: int = Field(gt=0, le=100_000_000, description="FFN width one token activates")
    vocab_size: int = Field(gt=0, le=100_000_000)
    # mixture-of-experts layout (contract names; config.json keys in brackets, DeepSeek naming)
    experts: int | None = Field(
        default=None, gt=0, le=100_000, description="routed experts per MoE layer [n_routed_experts]"
    )
    experts_per_token: int | None = Field(
        default=None, gt=0, le=100_000, description="routed experts each token activates [num_experts_per_tok]"
    )
    shared_experts: int | None = Field(
        default=None, ge=0, le=100_000, description="always-active shared experts per MoE layer [n_shared_experts]"
    )
    expert_ffn_hidden_size: int | None = Field(
        default=None, gt=0, le=100_000_000, description="FFN width of one expert [moe_intermediate_size]"
    )
    dense_layers: int | None = Field(
        default=None, ge=0, le=100_000, description="leading dense (non-MoE) layers [first_k_dense_replace]"
    )
    dense_ffn_hidden_size: int | None = Field(
        default=None, gt=0, le=100_000_000, description="FFN width of the dense layers [intermediate_size]"
    )
    routing_group_limit: int | None = Field(
        default=None,
        gt=0,
        le=100_000,
        description="a token's routed experts lie in at most this many expert groups (nodes for DeepSeek-V3, devices for V2) [topk_group]",
    )
    source: str | None = Field(default=None, max_length=2000)

    @field_validator("id", "source", mode="before")
    @classmethod
    def _clean(cls, value: object, info) -> object:
        # shown in every report: plain printable text (see common.text)
        return clean_name(value, info.field_name)

    @model_validator(mode="after")
    def _check(self) -> ModelSpec:
        if self.active_params_b is not None and self.active_params_b > self.params_b:
            raise ValueError(f"active_params_b ({self.active_params_b}) cannot exceed params_b ({self.params_b})")
        if self.kv_heads is not None and self.kv_heads > self.heads:
            raise ValueError(f"kv_heads ({self.kv_heads}) cannot exceed heads ({self.heads})")
        moe = {k: getattr(self, k) for k in ("experts", "experts_per_token", "expert_ffn_hidden_size")}
        if any(v is not None for v in moe.values()) and any(v is None for v in moe.values()):
            missing = ", ".join(k for k, v in moe.items() if v is None)
            raise ValueError(
                f"a mixture-of-experts layout needs experts, experts_per_token and expert_ffn_hidden_size together; missing {missing}"
            )
        if self.experts is not None and self.experts_per_token is not None and self.experts_per_token > self.experts:
            raise ValueError(f"experts_per_token ({self.experts_per_token}) cannot exceed experts ({self.experts})")
        if self.dense_layers is not None and self.dense_layers >= self.layers:
            raise ValueError(f"dense_layers ({self.dense_layers}) must be fewer than layers ({self.layers})")
        # the shape must be one model: every head gets hidden_size / heads dimensions, every key/value
        # head serves heads / kv_heads query heads, and the parameter count is about what the shape holds
        if self.hidden_size % self.heads:
            raise ValueError(
                f"heads ({self.heads}) must divide hidden_size ({self.hidden_size}): each attention head gets hidden_size / heads dimensions"
            )
        if self.kv_heads is not None and self.heads % self.kv_heads:
            raise ValueError(
                f"kv_heads ({self.kv_heads}) must divide heads ({self.heads}): each key/value head serves the same number of query heads"
            )
        implied = self.shape_params() / 1e9
        field, given = (
            ("active_params_b", self.active_params_b)
            if self.active_params_b is not None
            else ("params_b", self.params_b)
        )
        if not implied / PARAMS_FACTOR <= given <= implied * PARAMS_FACTOR:
            raise ValueError(
                f"{field} ({given:g}) is not within a factor of {PARAMS_FACTOR} of the {implied:.3g} billion parameters a token "
                f"activates in this shape (layers {self.layers}, hidden_size {self.hidden_size}, heads {self.heads}, "
                f"kv_heads {self.kv_heads or self.heads}, ffn_hidden_size {self.ffn_hidden_size}, vocab_size {self.vocab_size}); "
                "check these fields against the model's config.json"
            )
        return self

    def shape_params(self) -> float:
        """Parameters a token activates, as the shape implies them: per layer the attention
        projections (query and output h², key and value h² · kv_heads / heads) and a gated MLP
        (3 · h · ffn_hidden_size), plus input and output embeddings (2 · vocab_size · h). Within a few
        percent of every bundled preset's published count (mixture-of-experts: its active count)."""
        h = self.hidden_size
        kv = self.kv_heads or self.heads
        attention = 2 * h * h + 2 * h * (h * kv / self.heads)
        return float(self.layers * (attention + 3 * h * self.ffn_hidden_size) + 2 * self.vocab_size * h)

    @property
    def params(self) -> float:
        return self.params_b * 1e9

    @property
    def active_params(self) -> float:
        return (self.active_params_b or self.params_b) * 1e9

    @property
    def is_moe(self) -> bool:
        return self.active_params_b is not None and self.active_params_b < self.params_b

    @property
    def has_expert_layout(self) -> bool:
        """True when the MoE fields are given, so experts can be placed (expert parallelism)."""
        return self.experts is not None

    @property
    def moe_layers(self) -> int:
        return self.layers - (self.dense_layers or 0) if self.has_expert_layout else 0

    @property
    def expert_params(self) -> float:
        """Routed-expert parameters of the whole model: moe_layers × experts × 3·h·f_e (gated MLP: gate,
        up, down). Everything else (attention, shared experts, dense layers, embeddings) is P − this."""
        if self.experts is None or self.expert_ffn_hidden_size is None:
            return 0.0
        return float(self.moe_layers * self.experts * 3 * self.hidden_size * self.expert_ffn_hidden_size)

    @property
    def label(self) -> str:
        return self.id or f"custom {self.params_b:g}B"


@lru_cache(maxsize=1)
def model_presets() -> dict[str, ModelSpec]:
    """The bundled presets (``models/data/model_presets.yaml``) by id."""
    path = Path(str(resources.files("procure.models") / "data" / "model_presets.yaml"))
    data, lines = load_yaml(path, "model presets")
    out: dict[str, ModelSpec] = {}
    problems: list[Problem] = []
    for i, row in enumerate(data.get("presets", [])):
        try:
            spec = ModelSpec.model_validate(row)
            out[spec.id or f"presets[{i}]"] = spec
        except ValidationError as exc:
            problems += problems_from(exc, str(path), ("presets", i), lambda loc: line_of(lines, loc))
    if problems:
        raise InputError(problems)
    return out


def resolve_preset(name: str) -> ModelSpec:
    presets = model_presets()
    key = name.strip().lower()
    for pid, spec in presets.items():
        if pid.lower() == key:
            return spec
    raise ValueError(unknown_choice("model preset", name, presets))
