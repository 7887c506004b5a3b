import ort from 'onnxruntime-node';
const M = '/work/wt/realspeed/.cache/real-models';
const denormal = process.argv[2] === '1';
const opt = { intraOpNumThreads: 2, graphOptimizationLevel: 'all', extra: { session: { set_denormal_as_zero: denormal ? '1' : '0' } } };
const sam = await ort.InferenceSession.create(`${M}/sam-vit-base/vision_encoder.onnx`, opt);
const d = new Float32Array(3 * 1024 * 1024);
for (let c = 0; c < 3; c++) for (let y = 0; y < 768; y++) for (let x = 0; x < 1024; x++) d[c * 1048576 + y * 1024 + x] = Math.random() * 4 - 2;
const input = new ort.Tensor('float32', d, [1, 3, 1024, 1024]);
const t0 = performance.now(); await sam.run({ pixel_values: input }); console.log('sam padded input, denormal_as_zero', denormal, Math.round(performance.now() - t0), 'ms');
