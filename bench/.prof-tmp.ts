import { scoreGrounding } from '../src/scoring/index.js';
import type { CocoFile } from '../src/annotate/coco.js';
const images: CocoFile['images'] = []; const annotations: CocoFile['annotations'] = []; const rs: any[] = [];
for (let i = 0; i < 6509; i++) { images.push({ id: i, file_name: 'x', width: 640, height: 480, item_id: `i${i}`, split: i % 2 ? 'coco-one' : 'whatsup-a' });
  annotations.push({ id: i, image_id: i, category_id: 1, bbox: [64, 96, 256, 288], area: 1, iscrowd: 0, role: 'subject', phrase: 'mug', score: 0.8 });
  rs.push({ key: `g${i}`, model: 'm', output: `<|box_start|>(${100 + i % 50},${200}),(${500},${800})<|box_end|>`, status: 'ok', error: null, item: `i${i}`, role: 'subject' }); }
const coco = { info: {} as any, images, annotations, categories: [] };
for (let k = 0; k < 3; k++) { const t0 = performance.now(); scoreGrounding(rs, coco, { boxFormat: 'qwen2-vl' }); console.log('grounding one model ms', (performance.now() - t0).toFixed(1)); }
const { parseBox } = await import('../src/scoring/index.js');
let t0 = performance.now(); for (let i = 0; i < 6509; i++) parseBox(rs[i].output, { format: 'qwen2-vl', width: 640, height: 480 }); console.log('parseBox x6509 ms', (performance.now() - t0).toFixed(1));
const cpu = (fn: () => void) => { const c0 = process.cpuUsage(); const t0 = performance.now(); fn(); const c = process.cpuUsage(c0); return `cpu ${((c.user + c.system) / 1000).toFixed(1)}ms wall ${(performance.now() - t0).toFixed(1)}ms`; };
for (let k = 0; k < 3; k++) {
  console.log('scoreGrounding', cpu(() => scoreGrounding(rs, coco, { boxFormat: 'qwen2-vl' })));
  console.log('parseBox loop', cpu(() => { for (let i = 0; i < 6509; i++) parseBox(rs[i].output, { format: 'qwen2-vl', width: 640, height: 480 }); }));
}
