// tf_tfjs_expect.js DIR IN.json OUT.json: load the TensorFlow.js graph
// model DIR/model.json with its weight shards as TensorFlow.js reads them
// (shards concatenated in manifest order, weights dequantized by tfjs-core),
// run it on the CPU backend with the inputs of IN.json ({name: {shape,
// data}}) and write every signature output (or the outputs named in IN.json
// under "__outputs") to OUT.json as {name: {shape, dtype, data}}.
// Used by tests/gen/tf_tfjs.py; needs @tensorflow/tfjs-core,
// tfjs-backend-cpu and tfjs-converter 4.22.0 on NODE_PATH.
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const conv = require('@tensorflow/tfjs-converter');
const fs = require('fs');
const path = require('path');
async function main() {
  await tf.setBackend('cpu');
  const [dir, inFile, outFile] = process.argv.slice(2);
  const m = JSON.parse(fs.readFileSync(path.join(dir, 'model.json')));
  const specs = [], bufs = [];
  for (const g of m.weightsManifest) {
    for (const p of g.paths) bufs.push(fs.readFileSync(path.join(dir, p)));
    specs.push(...g.weights);
  }
  const w = Buffer.concat(bufs);
  const ab = w.buffer.slice(w.byteOffset, w.byteOffset + w.byteLength);
  const model = await conv.loadGraphModel(tf.io.fromMemory({
    modelTopology: m.modelTopology, weightSpecs: specs, weightData: ab,
    format: m.format, generatedBy: m.generatedBy, convertedBy: m.convertedBy, signature: m.signature}));
  const inp = JSON.parse(fs.readFileSync(inFile));
  const names = inp.__outputs || Object.keys(m.signature.outputs);
  delete inp.__outputs;
  const feeds = {};
  for (const [k, v] of Object.entries(inp)) feeds[k] = tf.tensor(v.data, v.shape, 'float32');
  let out = model.execute(feeds, names);
  if (!Array.isArray(out)) out = [out];
  const res = {};
  names.forEach((n, i) => {
    res[n] = {shape: out[i].shape, dtype: out[i].dtype, data: Array.from(out[i].dataSync())};
  });
  fs.writeFileSync(outFile, JSON.stringify(res));
}
main().catch(e => { console.error(e); process.exit(1); });
