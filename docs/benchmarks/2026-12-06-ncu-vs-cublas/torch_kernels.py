# Launches the cuBLAS GEMMs (through PyTorch, TF32 off) that profile.sh profiles beside vibegemm's.
import sys, torch
torch.backends.cuda.matmul.allow_tf32 = False
dev = "cuda"
which = sys.argv[1]
def run(m, n, k, dt, trans_b=False):
    a = torch.randn(m, k, device=dev, dtype=dt)
    b = torch.randn(n, k, device=dev, dtype=dt) if trans_b else torch.randn(k, n, device=dev, dtype=dt)
    for _ in range(3):
        c = a @ (b.t() if trans_b else b)
    torch.cuda.synchronize()
if which == "square": run(4096, 4096, 4096, torch.bfloat16)
if which == "decode": run(16, 11008, 4096, torch.bfloat16, trans_b=True)
if which == "gpt2":
    run(1024, 3072, 768, torch.float32); run(1024, 768, 3072, torch.float32)
if which == "square_f32": run(4096, 4096, 4096, torch.float32)
