// The callback API, one call after another (each in the previous one's callback): results, errors
// (no stack frames), and what runs before a callback (nextTicks and promise jobs queued by the call).
import fs from 'node:fs';
import path from 'node:path';
import { cleanUp, describeError, log, root } from './lib.mjs';

const file = path.join(root, 'cb.txt');
const order = [];

function step(label, next) {
  return (error, result) => {
    if (error) log(label, 'error', describeError(error), 'frames', error.stack.split('\n').length - 1);
    else log(label, result === undefined ? 'ok' : result);
    next();
  };
}

fs.writeFile(file, 'abc', (...args) => {
  order.push('writeFile');
  log('writeFile args', args);
  process.nextTick(() => order.push('tick after writeFile'));
  fs.readFile(file, 'utf8', step('readFile', () => {
    fs.stat(file, (error, stats) => {
      log('stat', error, stats.size, stats.isFile());
      fs.open(file, 'r+', (error, fd) => {
        log('open', error, typeof fd);
        const buffer = Buffer.from('XY');
        fs.write(fd, buffer, 0, 2, 1, (error, written, same) => {
          log('write', error, written, same === buffer);
          fs.read(fd, Buffer.alloc(10), 0, 10, 0, (error, bytesRead, data) => {
            log('read', error, bytesRead, data.toString('utf8', 0, bytesRead));
            fs.fsync(fd, (...args) => {
              log('fsync args', args);
              fs.close(fd, (...args) => {
                log('close args', args);
                fs.close(fd, step('close again', () => {
                  fs.readFile(path.join(root, 'missing'), step('readFile missing', () => {
                    fs.mkdir(path.join(root, 'a', 'b'), { recursive: true }, step('mkdir -p', () => {
                      fs.readdir(root, (error, names) => {
                        log('readdir', error, names.sort());
                        fs.unlink(path.join(root, 'missing'), step('unlink missing', () => {
                          fs.access(file, step('access', () => {
                            fs.exists(file, (exists) => {
                              log('exists', exists);
                              log('order', order);
                              cleanUp();
                            });
                          }));
                        }));
                      });
                    }));
                  }));
                }));
              });
            });
          });
        });
      });
    });
  }));
});
