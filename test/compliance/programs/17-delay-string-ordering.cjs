'use strict';
// String delays order as the numbers they spell: '10' after 5, '30' after 20. (Created in
// ascending order of delay, so real Node's order cannot depend on elapsed time.)
const log = (s) => console.log(s);
setTimeout(() => log("'abc' (treated as 1)"), 'abc');
setTimeout(() => log('-100 (treated as 1)'), -100);
setTimeout(() => log('5'), 5);
setTimeout(() => log("'10'"), '10');
setTimeout(() => log('20'), 20);
setTimeout(() => log("'30'"), '30');
