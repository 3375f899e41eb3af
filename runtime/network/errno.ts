/** libuv error codes (negative errno on Linux), as Node's handles return them. */
export const UV = {
  EOF: -4095,
  ECONNREFUSED: -111,
  ECONNRESET: -104,
  ETIMEDOUT: -110,
  EPIPE: -32,
  EADDRINUSE: -98,
  EADDRNOTAVAIL: -99,
  ENOTCONN: -107,
  EINVAL: -22,
  EMSGSIZE: -90,
  EBADF: -9,
  ECANCELED: -125,
  ENETUNREACH: -101,
  EAI_NONAME: -3008,
  EAGAIN: -11,
} as const;
