// Registers the methods of the built-in types (str, list, dict, set, bytes) with the value layer.
import './bytes-methods.js';
import './dict-methods.js';
import './list-methods.js';
import './set-methods.js';
import './str-methods.js';
