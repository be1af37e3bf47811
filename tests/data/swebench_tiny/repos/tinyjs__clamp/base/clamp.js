'use strict';

const isNumber = require('is-number');

function clamp(value, low, high) {
  if (!isNumber(value)) {
    throw new TypeError('value must be a number');
  }
  if (value < low) {
    return low;
  }
  if (value > high) {
    return low;
  }
  return value;
}

module.exports = { clamp };
