// lib/protocol/families.ts: model families (docs/families.md#the-rule). The table is also in docs/families.md.
import t from 'tap';
import { FAMILY_RULES, familiesOf, modelFamily } from '../../lib/protocol/families.js';

const TABLE: [string, string][] = [
  // anthropic
  ['claude-3.5-sonnet', 'anthropic'],
  ['Claude-3-Opus-20240229', 'anthropic'],
  ['claude-sonnet-4', 'anthropic'],
  ['claude', 'anthropic'],
  ['anthropic/claude-3-haiku', 'anthropic'],
  ['openrouter/anthropic/claude-3.5-sonnet', 'anthropic'],
  ['my-claude', 'my'],
  // openai
  ['gpt-4o', 'openai'],
  ['GPT-4', 'openai'],
  ['gpt4', 'openai'],
  ['openai/gpt-4o-mini', 'openai'],
  ['chatgpt-4o-latest', 'openai'],
  ['o1-mini', 'openai'],
  ['o1', 'openai'],
  ['o3', 'openai'],
  ['o4-mini-high', 'openai'],
  ['olmo-7b', 'olmo'],
  ['allenai/OLMo-2-1124-13B', 'olmo'],
  // google
  ['gemini-1.5-pro', 'google'],
  ['gemini-2.0-flash', 'google'],
  ['google/gemma-2-9b-it', 'google'],
  ['gemma2', 'google'],
  // meta
  ['llama3.1', 'meta'],
  ['llama-3-70b', 'meta'],
  ['meta-llama/Llama-3-70b', 'meta'],
  ['llama3:8b', 'meta'],
  ['codellama-34b', 'codellama'],
  // mistral
  ['mistral-large-latest', 'mistral'],
  ['mistralai/Mixtral-8x7B', 'mistral'],
  ['mistralai/Mistral-7B-Instruct-v0.2', 'mistral'],
  ['codestral-22b', 'mistral'],
  // alibaba
  ['Qwen/Qwen2.5-72B', 'alibaba'],
  ['qwen-max', 'alibaba'],
  ['qwq-32b', 'qwq'],
  // deepseek, xai
  ['deepseek-r1', 'deepseek'],
  ['deepseek-ai/DeepSeek-V3', 'deepseek'],
  ['grok-2', 'xai'],
  ['grok', 'xai'],
  // microsoft
  ['phi-3', 'microsoft'],
  ['microsoft/Phi-3-mini-4k-instruct', 'microsoft'],
  ['phi3.5', 'microsoft'],
  ['phind-codellama', 'phind'],
  // cohere
  ['command-r-plus', 'cohere'],
  ['command r', 'cohere'],
  ['command', 'cohere'],
  ['commander', 'commander'],
  ['CohereForAI/c4ai-command-r-plus', 'c'],
  // boundary characters and the fallback
  ['claude_3', 'anthropic'],
  ['gpt.4', 'openai'],
  ['gptx', 'gptx'],
  ['o1preview', 'o'],
  ['text-davinci-003', 'text'],
  ['yi-34b', 'yi'],
  ['42', '42'],
  ['org/123', '123'],
  ['weird/', 'weird'],
];

t.test('the family of each name in the table', async (t) => {
  t.ok(TABLE.length >= 30);
  for (const [name, family] of TABLE) t.equal(modelFamily(name), family, name);
});

t.test('the rules are those of docs/families.md#the-rule, in order', async (t) => {
  t.same(
    FAMILY_RULES.map(([p, f]) => `${p}->${f}`),
    [
      'claude->anthropic',
      'gpt->openai',
      'o1->openai',
      'o3->openai',
      'o4->openai',
      'chatgpt->openai',
      'gemini->google',
      'gemma->google',
      'llama->meta',
      'mistral->mistral',
      'mixtral->mistral',
      'codestral->mistral',
      'qwen->alibaba',
      'deepseek->deepseek',
      'grok->xai',
      'phi->microsoft',
      'command->cohere',
    ],
  );
});

t.test('familiesOf: sorted and unique; none for undeclared', async (t) => {
  t.same(familiesOf(undefined), []);
  t.same(familiesOf([]), []);
  t.same(familiesOf(['gpt-4o', 'claude-3.5-sonnet', 'o1-mini', 'Claude-3-Haiku', 'llama3.1']), ['anthropic', 'meta', 'openai']);
  t.same(familiesOf(['olmo-7b', 'gemini-1.5-pro']), ['google', 'olmo']);
});
