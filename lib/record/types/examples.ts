// Values the descriptors' examples for /skill.md share (a claim, a hash): examples, not rules.
export const EXAMPLE_CLAIM = 'rec:0123456789abcdef#C1';
export const EXAMPLE_HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
