"""Issue 39 item 4 ("never silently wrong"): the monitor on HF
transformers and TransformerLens models where it used to report numbers
the softmax never saw. Each section is one finding; models are built from
configs (random init, no download). Truth: the model's own softmax input,
recorded at the call (float64), and its own weights (output_attentions),
within relative 1e-6 as tests/hf/hf_models_test.py (float32 weights
rounded to ~6e-8 relative; the monitor computes in double from the same
float32 Q and K); or a refusal naming the feature (no numbers).

    monitor_issue39_test.py [SECTION...]      (default: every section)
"""

import math
import re
import sys
import warnings

import numpy as np
import torch

import transformers
import sdpa_var
from monitor_common import compare, peer
from reference import Checker

chk = Checker("hf.monitor_issue39[transformers %s]" % transformers.__version__)
T = transformers
V = 97


def messages(w):
    return [str(x.message) for x in w if str(x.message).startswith("sdpa_var")]


# -- 1. T5's position_bias in attn_implementation="eager" ---------------------
T5S = {
    "t5": lambda: T.T5Config(vocab_size=V, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                             num_decoder_layers=2, num_heads=4, decoder_start_token_id=0),
    "mt5": lambda: T.MT5Config(vocab_size=V, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                               num_decoder_layers=2, num_heads=4, decoder_start_token_id=0),
    # a relative position bias table in every layer
    "umt5": lambda: T.UMT5Config(vocab_size=V, d_model=64, d_kv=16, d_ff=128, num_layers=2,
                                 num_decoder_layers=2, num_heads=4, decoder_start_token_id=0),
}


def t5_build(make):
    torch.manual_seed(39)
    model = T.AutoModel.from_config(make(), attn_implementation="eager").eval()
    with torch.no_grad():
        for m in model.modules():
            bias = getattr(m, "relative_attention_bias", None)
            if bias is not None:
                bias.weight.normal_(0.0, 2.0)  # large enough to move every statistic
    return model


def t5_inputs():
    g = torch.Generator().manual_seed(4)
    ids = torch.randint(1, V, (2, 10), generator=g)
    dec = torch.randint(1, V, (2, 7), generator=g)
    am = torch.ones(2, 10, dtype=torch.long)
    am[1, 7:] = 0  # padding: the mask and the bias are combined
    return ids, dec, am


def t5_layer(name):
    """(output_attentions field, layer index) of a T5 attention module."""
    i = int(re.findall(r"block\.(\d+)", name)[0])
    if name.startswith("encoder"):
        return "encoder_attentions", i
    return ("cross_attentions" if "EncDec" in name else "decoder_attentions"), i


def record_eager(modeling):
    """Records each eager_attention_forward call's softmax input (float64,
    -inf where HF's finfo.min fill excludes) in call order."""
    calls, inner = [], modeling.eager_attention_forward

    def recorded(module, query, key, value, attention_mask, scaling=None, dropout=0.0,
                 position_bias=None, **kwargs):
        s = (query.double() @ key.double().transpose(-1, -2)) * scaling
        cut = None
        if position_bias is not None:
            s = s + position_bias.double()
        if attention_mask is not None:
            s = s + attention_mask.double()
            cut = attention_mask <= torch.finfo(attention_mask.dtype).min / 2
        if cut is not None:
            s = s.masked_fill(cut, -math.inf)
        calls.append((module, s, scaling))
        return inner(module, query, key, value, attention_mask, scaling, dropout,
                     position_bias, **kwargs)

    modeling.eager_attention_forward = recorded
    return calls, inner


def t5_case(name, make):
    model = t5_build(make)
    modeling = sys.modules[type(model.encoder.block[0].layer[0].SelfAttention).__module__]
    names = {id(m): n for n, m in model.named_modules()}
    ids, dec, am = t5_inputs()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with sdpa_var.monitor(model) as mon, torch.no_grad():
            # the recorder in front of the monitor's wrapper, while attached
            calls, inner = record_eager(modeling)
            try:
                out = model(ids, attention_mask=am, decoder_input_ids=dec,
                            output_attentions=True)
            finally:
                modeling.eager_attention_forward = inner
            res = mon.step()
    chk.ok(not messages(w), "%s eager: no warning" % name, str(messages(w)))
    chk.ok(len(res) == len(calls) == 6, "%s eager: every layer measured" % name,
           "%d measured, %d calls" % (len(res), len(calls)))
    for module, s, scaling in calls:
        lname = names[id(module)]
        field, i = t5_layer(lname)
        p = getattr(out, field)[i].double()
        # the recording is the model's own softmax
        chk.ok(torch.allclose(torch.softmax(s, -1), p, rtol=1e-5, atol=1e-6),
               "%s %s: recorded logits give HF's weights" % (name, lname))
        if lname in res:
            compare(chk, "%s %s" % (name, lname), res[lname], peer(s, scaling))


def t5_bias_refused():
    """An eager function that uses position_bias other than as one additive
    term: refused by name, no numbers."""
    import transformers.models.t5.modeling_t5 as modeling

    inner = modeling.eager_attention_forward

    def eager_attention_forward(module, query, key, value, attention_mask, scaling=None,
                                dropout=0.0, position_bias=None, **kwargs):
        if position_bias is not None:
            position_bias = 2.0 * position_bias  # not the additive term the monitor reads
        return inner(module, query, key, value, attention_mask, scaling, dropout,
                     position_bias, **kwargs)

    modeling.eager_attention_forward = eager_attention_forward
    try:
        model = t5_build(T5S["t5"])
        ids, dec, am = t5_inputs()
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            with sdpa_var.monitor(model) as mon, torch.no_grad():
                model(ids, attention_mask=am, decoder_input_ids=dec)
                res = mon.step()
    finally:
        modeling.eager_attention_forward = inner
    named = [m for m in messages(w) if "position_bias" in m]
    chk.ok(not res, "t5 bias used otherwise: no numbers", str(sorted(res or {})))
    chk.ok(len(named) == 6, "t5 bias used otherwise: refused by name, once per layer",
           str(messages(w)))


def section_t5():
    for name, make in T5S.items():
        t5_case(name, make)
    t5_bias_refused()


# -- 2. TransformerLens: what acts after the hook points ----------------------
def tl_build(**kw):
    from transformer_lens import HookedTransformer, HookedTransformerConfig

    base = dict(n_layers=2, d_model=64, n_heads=4, d_head=16, n_ctx=32, d_vocab=50,
                act_fn="gelu", seed=3, device="cpu")
    base.update(kw)
    return HookedTransformer(HookedTransformerConfig(**base)).eval()


def tl_measured(what, model):
    """Every layer against TransformerLens's own scores (hook_attn_scores,
    the softmax's input) and pattern."""
    tokens = torch.randint(0, 50, (2, 12), generator=torch.Generator().manual_seed(9))
    with torch.no_grad():
        _, cache = model.run_with_cache(tokens)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with sdpa_var.monitor(model) as mon, torch.no_grad():
            model(tokens)
            res = mon.step()
    chk.ok(not messages(w), "%s: no warning" % what, str(messages(w)))
    for i in range(model.cfg.n_layers):
        name = "blocks.%d.attn" % i
        s = cache["attn_scores", i].double()
        p = cache["pattern", i].double()
        chk.ok(torch.allclose(torch.softmax(s, -1), p, rtol=1e-5, atol=1e-6),
               "%s layer %d: the scores give TL's pattern" % (what, i))
        if chk.ok(name in res, "%s %s measured" % (what, name), str(sorted(res))):
            compare(chk, "%s %s" % (what, name), res[name],
                    peer(s, 1.0 / float(model.blocks[i].attn.attn_scale)))


def tl_refused(what, field, **kw):
    try:
        sdpa_var.monitor(tl_build(**kw))
    except ValueError as e:
        chk.ok(field in str(e), "%s: refused naming %s" % (what, field), str(e))
    else:
        chk.ok(False, "%s: refused naming %s" % (what, field), "monitor() took it")


def section_tl():
    try:
        import transformer_lens  # noqa: F401
    except ImportError as e:
        print("SKIP %s TransformerLens: %s" % (chk.name, e))
        return
    tl_measured("TL alibi", tl_build(positional_embedding_type="alibi"))
    # log-n past a training length of 4 (the test's 12 tokens): eval only
    tl_measured("TL logn", tl_build(positional_embedding_type="rotary", use_logn_attn=True,
                                    train_seq_length=4))
    tl_refused("TL softcap", "attn_scores_soft_cap", attn_scores_soft_cap=30.0)
    tl_refused("TL sinks", "use_attention_sinks", use_attention_sinks=True)


# -- 3. torch.compile ----------------------------------------------------------
def gpt2(impl="sdpa", **kw):
    torch.manual_seed(5)
    cfg = T.GPT2Config(vocab_size=V, n_embd=64, n_layer=2, n_head=4, n_positions=64, **kw)
    return T.AutoModel.from_config(cfg, attn_implementation=impl)


def monitored(model, call, **kw):
    """{layer: Stats} of one monitored forward, and the monitor's warnings."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with sdpa_var.monitor(model, **kw) as mon:
            call()
            res = mon.step()
    return res, messages(w)


def same(what, got, want, rel=1e-6):
    chk.ok(sorted(got) == sorted(want), "%s: the same layers" % what,
           "%s vs %s" % (sorted(got), sorted(want)))
    for name in sorted(set(got) & set(want)):
        ref = {s: torch.tensor(np.array(want[name].values[s]))
               for s in sdpa_var._monitor.DEFAULT_STATS}
        compare(chk, "%s %s" % (what, name), got[name], ref, rel=rel)
        chk.ok(got[name].config["calls"] == want[name].config["calls"],
               "%s %s calls" % (what, name),
               "%s vs %s" % (got[name].config["calls"], want[name].config["calls"]))


def section_compile():
    if not hasattr(torch, "compile"):
        print("SKIP %s torch.compile: torch %s has none" % (chk.name, torch.__version__))
        return
    ids = torch.randint(1, V, (2, 12), generator=torch.Generator().manual_seed(3))
    for impl in ("sdpa",):  # each compile takes ~10 s
        model = gpt2(impl).eval()
        with torch.no_grad():
            want, _ = monitored(model, lambda: model(ids))
            for target in ("model", "compiled"):  # monitor(model) or monitor(compiled)
                torch._dynamo.reset()
                compiled = torch.compile(model, backend="eager")
                try:
                    got, msgs = monitored(model if target == "model" else compiled,
                                          lambda: compiled(ids))
                except Exception as e:
                    chk.ok(False, "compiled %s, monitor(%s)" % (impl, target),
                           "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200]))
                    continue
                if target == "compiled":
                    got = {n.replace("_orig_mod.", ""): st for n, st in got.items()}
                chk.ok(not msgs, "compiled %s, monitor(%s): no warning" % (impl, target),
                       str(msgs))
                same("compiled %s, monitor(%s)" % (impl, target), got, want)


# -- 4. the inline-eager refusal suggests "sdpa" only where HF has it ----------
INLINE = {
    "gptj": lambda: T.GPTJConfig(vocab_size=V, n_embd=64, n_layer=2, n_head=4, rotary_dim=8,
                                 n_positions=64),
    "bloom": lambda: T.BloomConfig(vocab_size=V, hidden_size=64, n_layer=2, n_head=4),
    "codegen": lambda: T.CodeGenConfig(vocab_size=V, n_embd=64, n_layer=2, n_head=4,
                                       rotary_dim=8, n_positions=64),
}


def section_inline():
    for name, make in INLINE.items():
        model = T.AutoModel.from_config(make(), attn_implementation="eager")
        try:
            sdpa_var.monitor(model)
        except ValueError as e:
            msg = str(e)
        else:
            chk.ok(False, "%s eager: refused at monitor()" % name, "monitor() took it")
            continue
        try:
            T.AutoModel.from_config(make(), attn_implementation="sdpa")
            hf_sdpa = True
        except ValueError:
            hf_sdpa = False
        suggests = 'load the model with attn_implementation="sdpa"' in msg
        chk.ok(suggests == hf_sdpa, "%s eager refusal: suggests sdpa only where HF builds it"
               % name, "HF sdpa %s; %s" % (hf_sdpa, msg))
        chk.ok("observe(" in msg, "%s eager refusal: names observe()" % name, msg)


# -- 7. HF's gradient checkpointing: the recompute is not a second call -------
def section_checkpoint():
    ids = torch.randint(1, V, (2, 12), generator=torch.Generator().manual_seed(6))
    runs = {}
    for flavour in (None, True, False):
        model = gpt2("sdpa", resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0).train()
        if flavour is not None:
            model.gradient_checkpointing_enable(
                gradient_checkpointing_kwargs={"use_reentrant": flavour})
        runs[flavour] = monitored(model, lambda: model(ids).last_hidden_state.sum().backward())
    want, _ = runs[None]
    for flavour in (True, False):
        got, msgs = runs[flavour]
        what = "HF gradient checkpointing (use_reentrant=%s)" % flavour
        chk.ok(not msgs, "%s: no warning" % what, str(msgs))
        same(what, got, want, rel=1e-12)
        chk.ok(all(st.config["calls"] == "1" for st in got.values()), "%s: one call" % what,
               str({n: st.config["calls"] for n, st in got.items()}))


# -- 5. the sink share of a left-padded sequence ------------------------------
def section_sink():
    """A left-padded element's sink share (the weight on the first key each
    row sees) equals the same sequence unpadded, as every other statistic
    does; with the sink at key 0 it is the weight on a pad key: 0. Needs
    the engine's sink definition of issue 39 (the C engine's part)."""
    P, n = 4, 8
    g = torch.Generator().manual_seed(2)
    ids = torch.randint(1, V, (1, n), generator=g)
    batch = torch.cat([torch.cat([torch.zeros(1, P, dtype=torch.long), ids], 1),
                       torch.randint(1, V, (1, n + P), generator=g)])
    am = torch.ones(2, n + P, dtype=torch.long)
    am[0, :P] = 0
    pos = torch.stack([torch.cat([torch.zeros(P, dtype=torch.long), torch.arange(n)]),
                       torch.arange(n + P)])
    for impl in ("eager", "sdpa"):
        model = gpt2(impl).eval()
        with torch.no_grad():
            alone, _ = monitored(model, lambda: model(ids), reduce="none")
            padded, msgs = monitored(model, lambda: model(batch, attention_mask=am,
                                                          position_ids=pos), reduce="none")
        chk.ok(not msgs, "left padding %s: no warning" % impl, str(msgs))
        for name in sorted(alone):
            for stat in ("scaled_sink_weight", "scaled_entropy", "scaled_max_weight"):
                want, got = alone[name].values[stat][0], padded[name].values[stat][0]
                for h in range(len(want)):
                    chk.close("left padding %s %s %s[h=%d]" % (impl, name, stat, h), got[h],
                              want[h], rel=1e-6)


# -- 8. TransformerLens 4's TransformerBridge ----------------------------------
def section_tl4():
    """A TransformerBridge over an HF GPT-2 built from a config (no hub: the
    adapter from the config, no tokenizer): refused at monitor() by name.
    Needs TransformerLens 4 first on sys.path (build-venv/tl4)."""
    try:
        import transformer_lens
        from transformer_lens.model_bridge import TransformerBridge
        from transformer_lens.model_bridge.sources.transformers import source
        from transformer_lens.factories import architecture_adapter_factory as factory
    except ImportError as e:
        print("SKIP %s tl4: no TransformerLens 4 (%s; scripts/test.sh installs it into "
              "build-venv/tl4 from requirements.txt's #tl4 lines)" % (chk.name, e))
        sys.exit(77)
    torch.manual_seed(5)
    hf = T.GPT2LMHeadModel._from_config(T.GPT2Config(vocab_size=V, n_embd=64, n_layer=2,
                                                     n_head=4, n_positions=64),
                                        attn_implementation="eager").eval()
    arch = source.determine_architecture_from_hf_config(hf.config)
    bc = source.build_bridge_config_from_hf(hf.config, arch, "gpt2", torch.float32)
    adapter = factory.ArchitectureAdapterFactory.select_architecture_adapter(bc)
    adapter.cfg.device = "cpu"
    adapter.prepare_model(hf)
    bridge = TransformerBridge(hf, adapter, None)
    print("TransformerLens %s: %s" % (transformer_lens.__version__ if hasattr(
        transformer_lens, "__version__") else "4", type(bridge.blocks[0].attn).__name__))
    for what, target in (("bridge", bridge), ("bridge.original_model", bridge.original_model)):
        try:
            sdpa_var.monitor(target)
        except ValueError as e:
            chk.ok("TransformerBridge" in str(e), "TL4 %s: refused by name" % what, str(e))
        else:
            chk.ok(False, "TL4 %s: refused by name" % what, "monitor() took it")


def section_device():
    """GPT-2 eager on a device other than the CPU (meta: no values; CUDA
    the same way). transformers 4's GPT-2 eager function reads the module's
    causal `bias` buffer; the monitor made its additive mask on the CPU,
    so every layer was refused ("not read (RuntimeError: ... device ...)")
    instead of reaching the measurement, which skips meta tensors."""
    c = T.GPT2Config(vocab_size=V, n_embd=32, n_layer=2, n_head=2, n_positions=32)
    with torch.device("meta"):
        m = T.AutoModel.from_config(c, attn_implementation="eager")
    ids = torch.zeros(2, 8, dtype=torch.long, device="meta")
    for backend in ("engine", "torch"):
        _, msgs = monitored(m, lambda: m(ids), backend=backend)
        chk.ok(msgs and all("meta tensors hold no values" in x for x in msgs),
               "GPT-2 eager on meta, backend %s: skipped as meta" % backend, msgs)


SECTIONS = {"t5": section_t5, "tl": section_tl, "compile": section_compile,
            "inline": section_inline, "checkpoint": section_checkpoint, "sink": section_sink,
            "tl4": section_tl4, "device": section_device}


def main(names):
    """The sections named (default: all)."""
    for name in names or [n for n in SECTIONS if n != "tl4"]:
        SECTIONS[name]()
    chk.done()


if __name__ == "__main__":
    main(sys.argv[1:])
