'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { clamp } = require('../clamp');

test('keeps a value inside the range', () => {
  assert.strictEqual(clamp(5, 0, 10), 5);
});

test('raises a value below the range', () => {
  assert.strictEqual(clamp(-1, 0, 10), 0);
});
