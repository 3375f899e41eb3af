/**
 * Errors shaped like Node's own (same class, `code`, message and stack header), so a program
 * that inspects `err.code` or prints `err` sees the same thing under the simulator as plainly.
 * The message formats follow Node's lib/internal/errors.js on 20, 22 and 24.
 */
import { inspect } from 'node:util';

type ErrorClass = new (message?: string) => Error;

/** Creates an error like Node's internal NodeError: `TypeError [CODE]: message` in its stack. */
export function nodeError(Base: ErrorClass, code: string, message: string, hideFrom?: Function): Error {
  const error = new Base(message);
  if (hideFrom !== undefined) Error.captureStackTrace(error, hideFrom);
  Object.defineProperty(error, 'name', { value: `${Base.name} [${code}]`, configurable: true, writable: true });
  void error.stack; // V8 formats the stack header lazily, on first access.
  delete (error as { name?: string }).name;
  Object.defineProperty(error, 'code', { value: code, enumerable: true, writable: true, configurable: true });
  Object.defineProperty(error, 'toString', {
    value(this: Error) {
      return `${this.name} [${code}]: ${this.message}`;
    },
    enumerable: false,
    writable: true,
    configurable: true,
  });
  return error;
}

/** Node's description of a received value ("type number (5)", "an instance of Object", ...). */
export function describeReceived(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  switch (typeof value) {
    case 'bigint':
      return `type bigint (${value}n)`;
    case 'number':
      if (value === 0) return 1 / value === -Infinity ? 'type number (-0)' : 'type number (0)';
      return `type number (${value})`;
    case 'boolean':
      return `type boolean (${value})`;
    case 'symbol':
      return `type symbol (${String(value)})`;
    case 'function':
      return `function ${value.name}`;
    case 'object': {
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      if (typeof name === 'string' && name !== '') return `an instance of ${name}`;
      return inspect(value, { depth: -1 });
    }
    case 'string': {
      let text = value;
      if (text.length > 28) text = `${text.slice(0, 25)}...`;
      return text.indexOf("'") === -1 ? `type string ('${text}')` : `type string (${JSON.stringify(text)})`;
    }
    default:
      return inspect(value);
  }
}

/** `The "name" argument must be <expected>. Received ...` (ERR_INVALID_ARG_TYPE). */
export function invalidArgType(name: string, expected: string, actual: unknown, hideFrom?: Function): Error {
  const kind = name.includes('.') ? 'property' : 'argument';
  return nodeError(
    TypeError,
    'ERR_INVALID_ARG_TYPE',
    `The "${name}" ${kind} must be ${expected}. Received ${describeReceived(actual)}`,
    hideFrom,
  );
}

function addNumericalSeparator(text: string): string {
  let result = '';
  let i = text.length;
  const start = text[0] === '-' ? 1 : 0;
  for (; i >= start + 4; i -= 3) result = `_${text.slice(i - 3, i)}${result}`;
  return `${text.slice(0, i)}${result}`;
}

/** `The value of "name" is out of range. It must be <range>. Received ...` (ERR_OUT_OF_RANGE). */
export function outOfRange(name: string, range: string, input: unknown, hideFrom?: Function): Error {
  let received: string;
  if (Number.isInteger(input) && Math.abs(input as number) > 2 ** 32) {
    received = addNumericalSeparator(String(input));
  } else if (typeof input === 'bigint') {
    received = String(input);
    if (input > 2n ** 32n || input < -(2n ** 32n)) received = addNumericalSeparator(received);
    received += 'n';
  } else {
    received = inspect(input);
  }
  return nodeError(RangeError, 'ERR_OUT_OF_RANGE', `The value of "${name}" is out of range. It must be ${range}. Received ${received}`, hideFrom);
}

/** `The argument 'name' is invalid. Received ...` (ERR_INVALID_ARG_VALUE). */
export function invalidArgValue(name: string, value: unknown, reason = 'is invalid', hideFrom?: Function): Error {
  const kind = name.includes('.') ? 'property' : 'argument';
  let inspected = inspect(value);
  if (inspected.length > 128) inspected = `${inspected.slice(0, 128)}...`;
  return nodeError(TypeError, 'ERR_INVALID_ARG_VALUE', `The ${kind} '${name}' ${reason}. Received ${inspected}`, hideFrom);
}

// ---- validators with Node's semantics ------------------------------------------------------

export function validateFunction(value: unknown, name: string, hideFrom?: Function): asserts value is Function {
  if (typeof value !== 'function') throw invalidArgType(name, 'of type function', value, hideFrom);
}

export function validateObject(value: unknown, name: string, hideFrom?: Function): asserts value is object {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidArgType(name, 'of type object', value, hideFrom);
  }
}

export function validateBoolean(value: unknown, name: string, hideFrom?: Function): asserts value is boolean {
  if (typeof value !== 'boolean') throw invalidArgType(name, 'of type boolean', value, hideFrom);
}

export function validateNumber(value: unknown, name: string, hideFrom?: Function): asserts value is number {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value, hideFrom);
}

/** Node's validateUint32(value, name, positive). */
export function validateUint32(value: unknown, name: string, positive = false, hideFrom?: Function): asserts value is number {
  if (typeof value !== 'number') throw invalidArgType(name, 'of type number', value, hideFrom);
  if (!Number.isInteger(value)) throw outOfRange(name, 'an integer', value, hideFrom);
  const min = positive ? 1 : 0;
  const max = 4_294_967_295;
  if (value < min || value > max) throw outOfRange(name, `>= ${min} && <= ${max}`, value, hideFrom);
}

/** Node's validateAbortSignal(signal, name). */
export function validateAbortSignal(signal: unknown, name: string, hideFrom?: Function): void {
  if (
    signal !== undefined &&
    (signal === null || typeof signal !== 'object' || !('aborted' in signal))
  ) {
    throw invalidArgType(name, 'an instance of AbortSignal', signal, hideFrom);
  }
}

// ---- web-platform errors (webcrypto) -------------------------------------------------------

/** `Value of "this" must be of type <type>` (ERR_INVALID_THIS), e.g. a Crypto method detached. */
export function invalidThis(type: string, hideFrom?: Function): Error {
  return nodeError(TypeError, 'ERR_INVALID_THIS', `Value of "this" must be of type ${type}`, hideFrom);
}

/**
 * A plain TypeError carrying an own enumerable `code`, as Node's webidl converters throw it
 * (codedTypeError): unlike nodeError, the name stays "TypeError" with no "[CODE]" in the stack.
 */
export function codedTypeError(message: string, code: string, hideFrom?: Function): Error {
  const error = new TypeError(message);
  if (hideFrom !== undefined) Error.captureStackTrace(error, hideFrom);
  Object.defineProperty(error, 'code', { value: code, enumerable: true, writable: true, configurable: true });
  return error;
}

/** A DOMException with the given name, as Node's lazyDOMException(message, name) builds it. */
export function domException(message: string, name: string, hideFrom?: Function): Error {
  const error = new DOMException(message, name);
  if (hideFrom !== undefined) Error.captureStackTrace(error, hideFrom);
  return error;
}
