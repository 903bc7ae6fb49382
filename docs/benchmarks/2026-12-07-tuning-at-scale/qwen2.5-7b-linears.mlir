// The linear layers of Qwen2.5-7B at M = 1, 32, 256, 4096 (bf16, weights
// [N, K]); written by gen-workload.py beside this file.
#mA = affine_map<(m, n, k) -> (m, k)>
#mB = affine_map<(m, n, k) -> (n, k)>
#mC = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @qwen_m1(%x_q: tensor<1x3584xbf16>, %w_q: tensor<3584x3584xbf16>, %x_k: tensor<1x3584xbf16>, %w_k: tensor<512x3584xbf16>, %x_v: tensor<1x3584xbf16>, %w_v: tensor<512x3584xbf16>, %x_o: tensor<1x3584xbf16>, %w_o: tensor<3584x3584xbf16>, %x_gate: tensor<1x3584xbf16>, %w_gate: tensor<18944x3584xbf16>, %x_up: tensor<1x3584xbf16>, %w_up: tensor<18944x3584xbf16>, %x_down: tensor<1x18944xbf16>, %w_down: tensor<3584x18944xbf16>, %x_lm_head: tensor<1x3584xbf16>, %w_lm_head: tensor<152064x3584xbf16>) -> (tensor<1x3584xbf16>, tensor<1x512xbf16>, tensor<1x512xbf16>, tensor<1x3584xbf16>, tensor<1x18944xbf16>, tensor<1x18944xbf16>, tensor<1x3584xbf16>, tensor<1x152064xbf16>) {
  %zero = arith.constant 0.0 : f32
  %i_q = tensor.empty() : tensor<1x3584xf32>
  %f_q = linalg.fill ins(%zero : f32) outs(%i_q : tensor<1x3584xf32>) -> tensor<1x3584xf32>
  %mm_q = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_q, %w_q : tensor<1x3584xbf16>, tensor<3584x3584xbf16>) outs(%f_q : tensor<1x3584xf32>) -> tensor<1x3584xf32>
  %o_q = tensor.empty() : tensor<1x3584xbf16>
  %y_q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_q : tensor<1x3584xf32>) outs(%o_q : tensor<1x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x3584xbf16>
  %i_k = tensor.empty() : tensor<1x512xf32>
  %f_k = linalg.fill ins(%zero : f32) outs(%i_k : tensor<1x512xf32>) -> tensor<1x512xf32>
  %mm_k = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_k, %w_k : tensor<1x3584xbf16>, tensor<512x3584xbf16>) outs(%f_k : tensor<1x512xf32>) -> tensor<1x512xf32>
  %o_k = tensor.empty() : tensor<1x512xbf16>
  %y_k = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_k : tensor<1x512xf32>) outs(%o_k : tensor<1x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x512xbf16>
  %i_v = tensor.empty() : tensor<1x512xf32>
  %f_v = linalg.fill ins(%zero : f32) outs(%i_v : tensor<1x512xf32>) -> tensor<1x512xf32>
  %mm_v = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_v, %w_v : tensor<1x3584xbf16>, tensor<512x3584xbf16>) outs(%f_v : tensor<1x512xf32>) -> tensor<1x512xf32>
  %o_v = tensor.empty() : tensor<1x512xbf16>
  %y_v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_v : tensor<1x512xf32>) outs(%o_v : tensor<1x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x512xbf16>
  %i_o = tensor.empty() : tensor<1x3584xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%i_o : tensor<1x3584xf32>) -> tensor<1x3584xf32>
  %mm_o = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_o, %w_o : tensor<1x3584xbf16>, tensor<3584x3584xbf16>) outs(%f_o : tensor<1x3584xf32>) -> tensor<1x3584xf32>
  %o_o = tensor.empty() : tensor<1x3584xbf16>
  %y_o = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_o : tensor<1x3584xf32>) outs(%o_o : tensor<1x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x3584xbf16>
  %i_gate = tensor.empty() : tensor<1x18944xf32>
  %f_gate = linalg.fill ins(%zero : f32) outs(%i_gate : tensor<1x18944xf32>) -> tensor<1x18944xf32>
  %mm_gate = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_gate, %w_gate : tensor<1x3584xbf16>, tensor<18944x3584xbf16>) outs(%f_gate : tensor<1x18944xf32>) -> tensor<1x18944xf32>
  %o_gate = tensor.empty() : tensor<1x18944xbf16>
  %y_gate = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_gate : tensor<1x18944xf32>) outs(%o_gate : tensor<1x18944xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x18944xbf16>
  %i_up = tensor.empty() : tensor<1x18944xf32>
  %f_up = linalg.fill ins(%zero : f32) outs(%i_up : tensor<1x18944xf32>) -> tensor<1x18944xf32>
  %mm_up = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_up, %w_up : tensor<1x3584xbf16>, tensor<18944x3584xbf16>) outs(%f_up : tensor<1x18944xf32>) -> tensor<1x18944xf32>
  %o_up = tensor.empty() : tensor<1x18944xbf16>
  %y_up = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_up : tensor<1x18944xf32>) outs(%o_up : tensor<1x18944xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x18944xbf16>
  %i_down = tensor.empty() : tensor<1x3584xf32>
  %f_down = linalg.fill ins(%zero : f32) outs(%i_down : tensor<1x3584xf32>) -> tensor<1x3584xf32>
  %mm_down = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_down, %w_down : tensor<1x18944xbf16>, tensor<3584x18944xbf16>) outs(%f_down : tensor<1x3584xf32>) -> tensor<1x3584xf32>
  %o_down = tensor.empty() : tensor<1x3584xbf16>
  %y_down = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_down : tensor<1x3584xf32>) outs(%o_down : tensor<1x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x3584xbf16>
  %i_lm_head = tensor.empty() : tensor<1x152064xf32>
  %f_lm_head = linalg.fill ins(%zero : f32) outs(%i_lm_head : tensor<1x152064xf32>) -> tensor<1x152064xf32>
  %mm_lm_head = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_lm_head, %w_lm_head : tensor<1x3584xbf16>, tensor<152064x3584xbf16>) outs(%f_lm_head : tensor<1x152064xf32>) -> tensor<1x152064xf32>
  %o_lm_head = tensor.empty() : tensor<1x152064xbf16>
  %y_lm_head = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_lm_head : tensor<1x152064xf32>) outs(%o_lm_head : tensor<1x152064xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<1x152064xbf16>
  return %y_q, %y_k, %y_v, %y_o, %y_gate, %y_up, %y_down, %y_lm_head : tensor<1x3584xbf16>, tensor<1x512xbf16>, tensor<1x512xbf16>, tensor<1x3584xbf16>, tensor<1x18944xbf16>, tensor<1x18944xbf16>, tensor<1x3584xbf16>, tensor<1x152064xbf16>
}
func.func @qwen_m32(%x_q: tensor<32x3584xbf16>, %w_q: tensor<3584x3584xbf16>, %x_k: tensor<32x3584xbf16>, %w_k: tensor<512x3584xbf16>, %x_v: tensor<32x3584xbf16>, %w_v: tensor<512x3584xbf16>, %x_o: tensor<32x3584xbf16>, %w_o: tensor<3584x3584xbf16>, %x_gate: tensor<32x3584xbf16>, %w_gate: tensor<18944x3584xbf16>, %x_up: tensor<32x3584xbf16>, %w_up: tensor<18944x3584xbf16>, %x_down: tensor<32x18944xbf16>, %w_down: tensor<3584x18944xbf16>, %x_lm_head: tensor<32x3584xbf16>, %w_lm_head: tensor<152064x3584xbf16>) -> (tensor<32x3584xbf16>, tensor<32x512xbf16>, tensor<32x512xbf16>, tensor<32x3584xbf16>, tensor<32x18944xbf16>, tensor<32x18944xbf16>, tensor<32x3584xbf16>, tensor<32x152064xbf16>) {
  %zero = arith.constant 0.0 : f32
  %i_q = tensor.empty() : tensor<32x3584xf32>
  %f_q = linalg.fill ins(%zero : f32) outs(%i_q : tensor<32x3584xf32>) -> tensor<32x3584xf32>
  %mm_q = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_q, %w_q : tensor<32x3584xbf16>, tensor<3584x3584xbf16>) outs(%f_q : tensor<32x3584xf32>) -> tensor<32x3584xf32>
  %o_q = tensor.empty() : tensor<32x3584xbf16>
  %y_q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_q : tensor<32x3584xf32>) outs(%o_q : tensor<32x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x3584xbf16>
  %i_k = tensor.empty() : tensor<32x512xf32>
  %f_k = linalg.fill ins(%zero : f32) outs(%i_k : tensor<32x512xf32>) -> tensor<32x512xf32>
  %mm_k = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_k, %w_k : tensor<32x3584xbf16>, tensor<512x3584xbf16>) outs(%f_k : tensor<32x512xf32>) -> tensor<32x512xf32>
  %o_k = tensor.empty() : tensor<32x512xbf16>
  %y_k = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_k : tensor<32x512xf32>) outs(%o_k : tensor<32x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x512xbf16>
  %i_v = tensor.empty() : tensor<32x512xf32>
  %f_v = linalg.fill ins(%zero : f32) outs(%i_v : tensor<32x512xf32>) -> tensor<32x512xf32>
  %mm_v = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_v, %w_v : tensor<32x3584xbf16>, tensor<512x3584xbf16>) outs(%f_v : tensor<32x512xf32>) -> tensor<32x512xf32>
  %o_v = tensor.empty() : tensor<32x512xbf16>
  %y_v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_v : tensor<32x512xf32>) outs(%o_v : tensor<32x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x512xbf16>
  %i_o = tensor.empty() : tensor<32x3584xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%i_o : tensor<32x3584xf32>) -> tensor<32x3584xf32>
  %mm_o = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_o, %w_o : tensor<32x3584xbf16>, tensor<3584x3584xbf16>) outs(%f_o : tensor<32x3584xf32>) -> tensor<32x3584xf32>
  %o_o = tensor.empty() : tensor<32x3584xbf16>
  %y_o = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_o : tensor<32x3584xf32>) outs(%o_o : tensor<32x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x3584xbf16>
  %i_gate = tensor.empty() : tensor<32x18944xf32>
  %f_gate = linalg.fill ins(%zero : f32) outs(%i_gate : tensor<32x18944xf32>) -> tensor<32x18944xf32>
  %mm_gate = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_gate, %w_gate : tensor<32x3584xbf16>, tensor<18944x3584xbf16>) outs(%f_gate : tensor<32x18944xf32>) -> tensor<32x18944xf32>
  %o_gate = tensor.empty() : tensor<32x18944xbf16>
  %y_gate = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_gate : tensor<32x18944xf32>) outs(%o_gate : tensor<32x18944xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x18944xbf16>
  %i_up = tensor.empty() : tensor<32x18944xf32>
  %f_up = linalg.fill ins(%zero : f32) outs(%i_up : tensor<32x18944xf32>) -> tensor<32x18944xf32>
  %mm_up = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_up, %w_up : tensor<32x3584xbf16>, tensor<18944x3584xbf16>) outs(%f_up : tensor<32x18944xf32>) -> tensor<32x18944xf32>
  %o_up = tensor.empty() : tensor<32x18944xbf16>
  %y_up = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_up : tensor<32x18944xf32>) outs(%o_up : tensor<32x18944xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x18944xbf16>
  %i_down = tensor.empty() : tensor<32x3584xf32>
  %f_down = linalg.fill ins(%zero : f32) outs(%i_down : tensor<32x3584xf32>) -> tensor<32x3584xf32>
  %mm_down = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_down, %w_down : tensor<32x18944xbf16>, tensor<3584x18944xbf16>) outs(%f_down : tensor<32x3584xf32>) -> tensor<32x3584xf32>
  %o_down = tensor.empty() : tensor<32x3584xbf16>
  %y_down = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_down : tensor<32x3584xf32>) outs(%o_down : tensor<32x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x3584xbf16>
  %i_lm_head = tensor.empty() : tensor<32x152064xf32>
  %f_lm_head = linalg.fill ins(%zero : f32) outs(%i_lm_head : tensor<32x152064xf32>) -> tensor<32x152064xf32>
  %mm_lm_head = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_lm_head, %w_lm_head : tensor<32x3584xbf16>, tensor<152064x3584xbf16>) outs(%f_lm_head : tensor<32x152064xf32>) -> tensor<32x152064xf32>
  %o_lm_head = tensor.empty() : tensor<32x152064xbf16>
  %y_lm_head = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_lm_head : tensor<32x152064xf32>) outs(%o_lm_head : tensor<32x152064xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<32x152064xbf16>
  return %y_q, %y_k, %y_v, %y_o, %y_gate, %y_up, %y_down, %y_lm_head : tensor<32x3584xbf16>, tensor<32x512xbf16>, tensor<32x512xbf16>, tensor<32x3584xbf16>, tensor<32x18944xbf16>, tensor<32x18944xbf16>, tensor<32x3584xbf16>, tensor<32x152064xbf16>
}
func.func @qwen_m256(%x_q: tensor<256x3584xbf16>, %w_q: tensor<3584x3584xbf16>, %x_k: tensor<256x3584xbf16>, %w_k: tensor<512x3584xbf16>, %x_v: tensor<256x3584xbf16>, %w_v: tensor<512x3584xbf16>, %x_o: tensor<256x3584xbf16>, %w_o: tensor<3584x3584xbf16>, %x_gate: tensor<256x3584xbf16>, %w_gate: tensor<18944x3584xbf16>, %x_up: tensor<256x3584xbf16>, %w_up: tensor<18944x3584xbf16>, %x_down: tensor<256x18944xbf16>, %w_down: tensor<3584x18944xbf16>, %x_lm_head: tensor<256x3584xbf16>, %w_lm_head: tensor<152064x3584xbf16>) -> (tensor<256x3584xbf16>, tensor<256x512xbf16>, tensor<256x512xbf16>, tensor<256x3584xbf16>, tensor<256x18944xbf16>, tensor<256x18944xbf16>, tensor<256x3584xbf16>, tensor<256x152064xbf16>) {
  %zero = arith.constant 0.0 : f32
  %i_q = tensor.empty() : tensor<256x3584xf32>
  %f_q = linalg.fill ins(%zero : f32) outs(%i_q : tensor<256x3584xf32>) -> tensor<256x3584xf32>
  %mm_q = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_q, %w_q : tensor<256x3584xbf16>, tensor<3584x3584xbf16>) outs(%f_q : tensor<256x3584xf32>) -> tensor<256x3584xf32>
  %o_q = tensor.empty() : tensor<256x3584xbf16>
  %y_q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_q : tensor<256x3584xf32>) outs(%o_q : tensor<256x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x3584xbf16>
  %i_k = tensor.empty() : tensor<256x512xf32>
  %f_k = linalg.fill ins(%zero : f32) outs(%i_k : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm_k = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_k, %w_k : tensor<256x3584xbf16>, tensor<512x3584xbf16>) outs(%f_k : tensor<256x512xf32>) -> tensor<256x512xf32>
  %o_k = tensor.empty() : tensor<256x512xbf16>
  %y_k = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_k : tensor<256x512xf32>) outs(%o_k : tensor<256x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x512xbf16>
  %i_v = tensor.empty() : tensor<256x512xf32>
  %f_v = linalg.fill ins(%zero : f32) outs(%i_v : tensor<256x512xf32>) -> tensor<256x512xf32>
  %mm_v = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_v, %w_v : tensor<256x3584xbf16>, tensor<512x3584xbf16>) outs(%f_v : tensor<256x512xf32>) -> tensor<256x512xf32>
  %o_v = tensor.empty() : tensor<256x512xbf16>
  %y_v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_v : tensor<256x512xf32>) outs(%o_v : tensor<256x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x512xbf16>
  %i_o = tensor.empty() : tensor<256x3584xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%i_o : tensor<256x3584xf32>) -> tensor<256x3584xf32>
  %mm_o = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_o, %w_o : tensor<256x3584xbf16>, tensor<3584x3584xbf16>) outs(%f_o : tensor<256x3584xf32>) -> tensor<256x3584xf32>
  %o_o = tensor.empty() : tensor<256x3584xbf16>
  %y_o = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_o : tensor<256x3584xf32>) outs(%o_o : tensor<256x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x3584xbf16>
  %i_gate = tensor.empty() : tensor<256x18944xf32>
  %f_gate = linalg.fill ins(%zero : f32) outs(%i_gate : tensor<256x18944xf32>) -> tensor<256x18944xf32>
  %mm_gate = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_gate, %w_gate : tensor<256x3584xbf16>, tensor<18944x3584xbf16>) outs(%f_gate : tensor<256x18944xf32>) -> tensor<256x18944xf32>
  %o_gate = tensor.empty() : tensor<256x18944xbf16>
  %y_gate = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_gate : tensor<256x18944xf32>) outs(%o_gate : tensor<256x18944xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x18944xbf16>
  %i_up = tensor.empty() : tensor<256x18944xf32>
  %f_up = linalg.fill ins(%zero : f32) outs(%i_up : tensor<256x18944xf32>) -> tensor<256x18944xf32>
  %mm_up = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_up, %w_up : tensor<256x3584xbf16>, tensor<18944x3584xbf16>) outs(%f_up : tensor<256x18944xf32>) -> tensor<256x18944xf32>
  %o_up = tensor.empty() : tensor<256x18944xbf16>
  %y_up = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_up : tensor<256x18944xf32>) outs(%o_up : tensor<256x18944xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x18944xbf16>
  %i_down = tensor.empty() : tensor<256x3584xf32>
  %f_down = linalg.fill ins(%zero : f32) outs(%i_down : tensor<256x3584xf32>) -> tensor<256x3584xf32>
  %mm_down = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_down, %w_down : tensor<256x18944xbf16>, tensor<3584x18944xbf16>) outs(%f_down : tensor<256x3584xf32>) -> tensor<256x3584xf32>
  %o_down = tensor.empty() : tensor<256x3584xbf16>
  %y_down = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_down : tensor<256x3584xf32>) outs(%o_down : tensor<256x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x3584xbf16>
  %i_lm_head = tensor.empty() : tensor<256x152064xf32>
  %f_lm_head = linalg.fill ins(%zero : f32) outs(%i_lm_head : tensor<256x152064xf32>) -> tensor<256x152064xf32>
  %mm_lm_head = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_lm_head, %w_lm_head : tensor<256x3584xbf16>, tensor<152064x3584xbf16>) outs(%f_lm_head : tensor<256x152064xf32>) -> tensor<256x152064xf32>
  %o_lm_head = tensor.empty() : tensor<256x152064xbf16>
  %y_lm_head = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_lm_head : tensor<256x152064xf32>) outs(%o_lm_head : tensor<256x152064xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<256x152064xbf16>
  return %y_q, %y_k, %y_v, %y_o, %y_gate, %y_up, %y_down, %y_lm_head : tensor<256x3584xbf16>, tensor<256x512xbf16>, tensor<256x512xbf16>, tensor<256x3584xbf16>, tensor<256x18944xbf16>, tensor<256x18944xbf16>, tensor<256x3584xbf16>, tensor<256x152064xbf16>
}
func.func @qwen_m4096(%x_q: tensor<4096x3584xbf16>, %w_q: tensor<3584x3584xbf16>, %x_k: tensor<4096x3584xbf16>, %w_k: tensor<512x3584xbf16>, %x_v: tensor<4096x3584xbf16>, %w_v: tensor<512x3584xbf16>, %x_o: tensor<4096x3584xbf16>, %w_o: tensor<3584x3584xbf16>, %x_gate: tensor<4096x3584xbf16>, %w_gate: tensor<18944x3584xbf16>, %x_up: tensor<4096x3584xbf16>, %w_up: tensor<18944x3584xbf16>, %x_down: tensor<4096x18944xbf16>, %w_down: tensor<3584x18944xbf16>, %x_lm_head: tensor<4096x3584xbf16>, %w_lm_head: tensor<152064x3584xbf16>) -> (tensor<4096x3584xbf16>, tensor<4096x512xbf16>, tensor<4096x512xbf16>, tensor<4096x3584xbf16>, tensor<4096x18944xbf16>, tensor<4096x18944xbf16>, tensor<4096x3584xbf16>, tensor<4096x152064xbf16>) {
  %zero = arith.constant 0.0 : f32
  %i_q = tensor.empty() : tensor<4096x3584xf32>
  %f_q = linalg.fill ins(%zero : f32) outs(%i_q : tensor<4096x3584xf32>) -> tensor<4096x3584xf32>
  %mm_q = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_q, %w_q : tensor<4096x3584xbf16>, tensor<3584x3584xbf16>) outs(%f_q : tensor<4096x3584xf32>) -> tensor<4096x3584xf32>
  %o_q = tensor.empty() : tensor<4096x3584xbf16>
  %y_q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_q : tensor<4096x3584xf32>) outs(%o_q : tensor<4096x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4096x3584xbf16>
  %i_k = tensor.empty() : tensor<4096x512xf32>
  %f_k = linalg.fill ins(%zero : f32) outs(%i_k : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %mm_k = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_k, %w_k : tensor<4096x3584xbf16>, tensor<512x3584xbf16>) outs(%f_k : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %o_k = tensor.empty() : tensor<4096x512xbf16>
  %y_k = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_k : tensor<4096x512xf32>) outs(%o_k : tensor<4096x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4096x512xbf16>
  %i_v = tensor.empty() : tensor<4096x512xf32>
  %f_v = linalg.fill ins(%zero : f32) outs(%i_v : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %mm_v = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_v, %w_v : tensor<4096x3584xbf16>, tensor<512x3584xbf16>) outs(%f_v : tensor<4096x512xf32>) -> tensor<4096x512xf32>
  %o_v = tensor.empty() : tensor<4096x512xbf16>
  %y_v = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_v : tensor<4096x512xf32>) outs(%o_v : tensor<4096x512xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4096x512xbf16>
  %i_o = tensor.empty() : tensor<4096x3584xf32>
  %f_o = linalg.fill ins(%zero : f32) outs(%i_o : tensor<4096x3584xf32>) -> tensor<4096x3584xf32>
  %mm_o = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_o, %w_o : tensor<4096x3584xbf16>, tensor<3584x3584xbf16>) outs(%f_o : tensor<4096x3584xf32>) -> tensor<4096x3584xf32>
  %o_o = tensor.empty() : tensor<4096x3584xbf16>
  %y_o = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_o : tensor<4096x3584xf32>) outs(%o_o : tensor<4096x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4096x3584xbf16>
  %i_gate = tensor.empty() : tensor<4096x18944xf32>
  %f_gate = linalg.fill ins(%zero : f32) outs(%i_gate : tensor<4096x18944xf32>) -> tensor<4096x18944xf32>
  %mm_gate = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_gate, %w_gate : tensor<4096x3584xbf16>, tensor<18944x3584xbf16>) outs(%f_gate : tensor<4096x18944xf32>) -> tensor<4096x18944xf32>
  %o_gate = tensor.empty() : tensor<4096x18944xbf16>
  %y_gate = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_gate : tensor<4096x18944xf32>) outs(%o_gate : tensor<4096x18944xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4096x18944xbf16>
  %i_up = tensor.empty() : tensor<4096x18944xf32>
  %f_up = linalg.fill ins(%zero : f32) outs(%i_up : tensor<4096x18944xf32>) -> tensor<4096x18944xf32>
  %mm_up = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_up, %w_up : tensor<4096x3584xbf16>, tensor<18944x3584xbf16>) outs(%f_up : tensor<4096x18944xf32>) -> tensor<4096x18944xf32>
  %o_up = tensor.empty() : tensor<4096x18944xbf16>
  %y_up = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_up : tensor<4096x18944xf32>) outs(%o_up : tensor<4096x18944xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4096x18944xbf16>
  %i_down = tensor.empty() : tensor<4096x3584xf32>
  %f_down = linalg.fill ins(%zero : f32) outs(%i_down : tensor<4096x3584xf32>) -> tensor<4096x3584xf32>
  %mm_down = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_down, %w_down : tensor<4096x18944xbf16>, tensor<3584x18944xbf16>) outs(%f_down : tensor<4096x3584xf32>) -> tensor<4096x3584xf32>
  %o_down = tensor.empty() : tensor<4096x3584xbf16>
  %y_down = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_down : tensor<4096x3584xf32>) outs(%o_down : tensor<4096x3584xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4096x3584xbf16>
  %i_lm_head = tensor.empty() : tensor<4096x152064xf32>
  %f_lm_head = linalg.fill ins(%zero : f32) outs(%i_lm_head : tensor<4096x152064xf32>) -> tensor<4096x152064xf32>
  %mm_lm_head = linalg.matmul indexing_maps = [#mA, #mB, #mC] ins(%x_lm_head, %w_lm_head : tensor<4096x3584xbf16>, tensor<152064x3584xbf16>) outs(%f_lm_head : tensor<4096x152064xf32>) -> tensor<4096x152064xf32>
  %o_lm_head = tensor.empty() : tensor<4096x152064xbf16>
  %y_lm_head = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm_lm_head : tensor<4096x152064xf32>) outs(%o_lm_head : tensor<4096x152064xbf16>) {
  ^bb0(%v: f32, %o: bf16):
    %r = arith.truncf %v : f32 to bf16
    linalg.yield %r : bf16
  } -> tensor<4096x152064xbf16>
  return %y_q, %y_k, %y_v, %y_o, %y_gate, %y_up, %y_down, %y_lm_head : tensor<4096x3584xbf16>, tensor<4096x512xbf16>, tensor<4096x512xbf16>, tensor<4096x3584xbf16>, tensor<4096x18944xbf16>, tensor<4096x18944xbf16>, tensor<4096x3584xbf16>, tensor<4096x152064xbf16>
}
