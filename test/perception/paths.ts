import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SHARED = join(REPO_ROOT, '..', 'shared');
export const SAMPLE_ROOT = join(SHARED, 'data/whatsup-sample/data');
export const FASTESTDET_ONNX = join(SHARED, 'models/fastestdet/FastestDet.onnx');
export const FIXTURES = join(REPO_ROOT, 'test/fixtures/perception');

/** The 16 real photos, relative to SAMPLE_ROOT. */
export const SAMPLE_PHOTOS = [
  'controlled_clevr/mug_behind_plate.jpeg',
  'controlled_clevr/mug_in-front_of_plate.jpeg',
  'controlled_clevr/mug_left_of_plate.jpeg',
  'controlled_clevr/mug_right_of_plate.jpeg',
  'controlled_images/dog_left_of_table.jpeg',
  'controlled_images/dog_on_table.jpeg',
  'controlled_images/dog_right_of_table.jpeg',
  'controlled_images/dog_under_table.jpeg',
  'controlled_images/mug_left_of_table.jpeg',
  'controlled_images/mug_on_table.jpeg',
  'controlled_images/mug_right_of_table.jpeg',
  'controlled_images/mug_under_table.jpeg',
  'val2017/000000000001.jpg',
  'val2017/000000000002.jpg',
  'vg_images/1.jpg',
  'vg_images/2.jpg',
];
