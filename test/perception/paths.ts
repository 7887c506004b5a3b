import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/cli.js';

export const FIXTURES = join(REPO_ROOT, 'test/fixtures/perception');
/** The project's own test images: renders of its renderer and hard cases (scripts in that folder). */
export const IMAGES = join(FIXTURES, 'images');
/** A random-weight FastestDet with the real model's contract (fastestdet/make_fastestdet_tiny.py). */
export const FASTESTDET_TINY = join(FIXTURES, 'fastestdet', 'fastestdet-tiny.onnx');

/**
 * The 16 What'sUp sample photos, relative to the sample's data/ folder. The photos live beside the
 * repository (test/helpers/shared.ts, id `whatsupSample`); only optional checks read them.
 */
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
