// run.js DIR: load DIR/model.json (GraphDef JSON + weights) with tfjs-converter,
// feed DIR/in.json inputs, write DIR/expect.npy for the first output.
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const conv = require('@tensorflow/tfjs-converter');
const fs = require('fs');
async function main() {
  await tf.setBackend('cpu');
  const dir = process.argv[2];
  const m = JSON.parse(fs.readFileSync(dir + '/model.json'));
  const w = fs.readFileSync(dir + '/weights.bin');
  const ab = w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength);
  const model = await conv.loadGraphModel(tf.io.fromMemory({modelTopology: m.topology, weightSpecs: m.specs, weightData: ab}));
  const feeds = {};
  for (const [k, v] of Object.entries(m.inputs)) feeds[k] = tf.tensor(v.data, v.shape, 'float32');
  const out = model.execute(feeds, m.outputs);
  const t = Array.isArray(out) ? out[0] : out;
  const data = t.dataSync();
  const shape = t.shape;
  const descr = t.dtype === 'int32' ? '<i4' : '<f4';
  let hdr = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + shape.join(', ') + (shape.length === 1 ? ',' : '') + "), }";
  while ((10 + hdr.length + 1) % 64) hdr += ' ';
  hdr += '\n';
  const h = Buffer.alloc(10);
  h.write('\x93NUMPY', 0, 'latin1'); h[6] = 1; h[7] = 0; h.writeUInt16LE(hdr.length, 8);
  const body = Buffer.from(t.dtype === 'int32' ? new Int32Array(data).buffer : new Float32Array(data).buffer);
  fs.writeFileSync(dir + '/expect.npy', Buffer.concat([h, Buffer.from(hdr, 'latin1'), body]));
  console.log(dir, t.dtype, shape.join('x'));
}
main().catch(e => { console.error(e); process.exit(1); });
