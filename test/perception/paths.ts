import { join } from 'node:path';
import { FASTESTDET_DIR, REPO_ROOT, WHATSUP_SAMPLE_ROOT } from '../helpers/cli.js';

export const SAMPLE_ROOT = WHATSUP_SAMPLE_ROOT;
export const FASTESTDET_ONNX = join(FASTESTDET_DIR, 'FastestDet.onnx');
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
