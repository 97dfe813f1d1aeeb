/**
 * Writes a tiny BERT-shaped model folder that transformers.js loads offline, for tests of the transformers
 * embedder: config.json (model_type bert), a WordPiece tokenizer (tokenizer.json + tokenizer_config.json) over a
 * vocabulary the caller gives, and onnx/model.onnx built with onnx-proto:
 *
 *   last_hidden_state = tanh((word_emb[input_ids] + type_emb[token_type_ids]) · W + b)
 *
 * Weights come from a seeded generator, and `reference()` computes the same forward pass, mean pooling over the
 * attention mask and L2 normalisation in plain JS, so a test can check what the real pipeline returns.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import { seededRandom } from '../../src/bench/stats.js';

const { onnx } = onnxProto;

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];

export interface TinyBert {
  dir: string;
  vocab: Map<string, number>;
  hidden: number;
  /** The expected sentence embedding of already-split WordPiece tokens (without [CLS]/[SEP]). */
  reference(tokens: string[]): number[];
}

export async function writeTinyBert(dir: string, words: string[], hidden = 8, seed = 7): Promise<TinyBert> {
  const tokens = [...SPECIAL, ...new Set(words)];
  const vocab = new Map(tokens.map((t, i) => [t, i]));
  const next = seededRandom(seed); // the same weights on every run
  const rand = () => next() - 0.5;
  const matrix = (rows: number, cols: number) =>
    Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.fround(rand())));
  const wordEmb = matrix(tokens.length, hidden);
  const typeEmb = matrix(2, hidden);
  const w = matrix(hidden, hidden);
  const b = matrix(1, hidden)[0];

  const F = onnx.TensorProto.DataType.FLOAT;
  const I64 = onnx.TensorProto.DataType.INT64;
  const tensor = (name: string, dims: number[], rows: number[][]) => ({
    name,
    dims,
    dataType: F,
    floatData: rows.flat(),
  });
  const dim = (d: string | number) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d });
  const value = (name: string, elemType: number, dims: Array<string | number>) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map(dim) } } },
  });
  const model = onnx.ModelProto.create({
    irVersion: 7,
    producerName: 'qitos-ts tests',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'tiny-bert',
      input: [
        value('input_ids', I64, ['batch', 'seq']),
        value('attention_mask', I64, ['batch', 'seq']),
        value('token_type_ids', I64, ['batch', 'seq']),
      ],
      output: [value('last_hidden_state', F, ['batch', 'seq', hidden])],
      initializer: [
        tensor('word_emb', [tokens.length, hidden], wordEmb),
        tensor('type_emb', [2, hidden], typeEmb),
        tensor('w', [hidden, hidden], w),
        tensor('b', [hidden], [b]),
      ],
      node: [
        { opType: 'Gather', input: ['word_emb', 'input_ids'], output: ['e_word'] },
        { opType: 'Gather', input: ['type_emb', 'token_type_ids'], output: ['e_type'] },
        { opType: 'Add', input: ['e_word', 'e_type'], output: ['e'] },
        { opType: 'MatMul', input: ['e', 'w'], output: ['m'] },
        { opType: 'Add', input: ['m', 'b'], output: ['h'] },
        { opType: 'Tanh', input: ['h'], output: ['last_hidden_state'] },
      ],
    },
  });
  await mkdir(join(dir, 'onnx'), { recursive: true });
  await writeFile(join(dir, 'onnx', 'model.onnx'), onnx.ModelProto.encode(model).finish());
  await writeFile(
    join(dir, 'config.json'),
    JSON.stringify({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: hidden,
      vocab_size: tokens.length,
      num_hidden_layers: 1,
      num_attention_heads: 1,
      intermediate_size: hidden,
      max_position_embeddings: 128,
      type_vocab_size: 2,
    }),
  );
  const special = (t: string) => ({
    id: vocab.get(t),
    content: t,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  await writeFile(
    join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: SPECIAL.map(special),
      normalizer: {
        type: 'BertNormalizer',
        clean_text: true,
        handle_chinese_chars: true,
        strip_accents: null,
        lowercase: true,
      },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
        ],
        pair: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '[SEP]', type_id: 1 } },
        ],
        special_tokens: {
          '[CLS]': { id: '[CLS]', ids: [vocab.get('[CLS]')], tokens: ['[CLS]'] },
          '[SEP]': { id: '[SEP]', ids: [vocab.get('[SEP]')], tokens: ['[SEP]'] },
        },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(vocab),
      },
    }),
  );
  await writeFile(
    join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 128,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
  );

  const reference = (wordpieces: string[]): number[] => {
    const ids = ['[CLS]', ...wordpieces, '[SEP]'].map((t) => vocab.get(t) ?? vocab.get('[UNK]')!);
    const sum = new Array<number>(hidden).fill(0);
    for (const id of ids) {
      const e = wordEmb[id].map((x, j) => Math.fround(x + typeEmb[0][j]));
      for (let k = 0; k < hidden; k++) {
        let m = 0;
        for (let j = 0; j < hidden; j++) m += e[j] * w[j][k];
        sum[k] += Math.tanh(m + b[k]);
      }
    }
    const mean = sum.map((x) => x / ids.length);
    const norm = Math.hypot(...mean);
    return mean.map((x) => x / norm);
  };
  return { dir, vocab, hidden, reference };
}
