/*
 * irrun.ir._walk: reading plainly written <layer> and <edge> elements straight from the
 * libxml2 tree that lxml parsed, without creating an lxml proxy object per element.
 *
 * This is an optional accelerator for irrun/ir/reader.py and must give exactly what the
 * Python reader gives. It only reads the common form (the one OpenVINO writes); anything else
 * in a layer (rt_info, bodies, comments inside ports, entity references, namespaces, lines
 * that libxml2 cannot store in 16 bits...) makes it hand that layer back to the Python reader,
 * which also raises every error. See reader.py for how the results are used.
 *
 * The tree is only read, with the GIL held, while the caller holds the element (and so its
 * document) alive; no Python code runs during a walk (signature lookups come after it), so
 * nothing can change the tree under it. lxml's _Element starts with PyObject_HEAD, its
 * document and its xmlNode*; that layout is lxml's public C API (struct LxmlElement in
 * lxml.etree.h) and has not changed since lxml 2. The module refuses to load when the size
 * of lxml's element differs, each call checks that the node points back at the element
 * (lxml keeps that link in _private), and the reader compares the results with lxml's on a
 * small document before it trusts the module (reader._checked_walker).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <libxml/tree.h>

typedef struct {
    PyObject_HEAD
    PyObject *doc;
    xmlNode *c_node;
} ElementLayout;

/* libxml2 keeps 16 bits of line per node; this value means "at or past 65535". */
#define BIG_LINE 65535

static PyObject *element_type = NULL; /* lxml.etree._Element */
/* During a layers() call: the caller's dict interning short repeated strings (types,
 * dims...), so that a model holds one object per distinct text. The reader empties it after
 * each load, so nothing is kept once the model is gone. */
static PyObject *strings = NULL;
#define MAX_INTERNED_LENGTH 64

static int is_named(const xmlNode *node, const char *name) {
    return node->type == XML_ELEMENT_NODE && node->ns == NULL &&
           strcmp((const char *)node->name, name) == 0;
}

/* Text, comments and processing instructions are skipped between elements. */
static int is_skipped(const xmlNode *node) {
    return node->type == XML_TEXT_NODE || node->type == XML_COMMENT_NODE ||
           node->type == XML_PI_NODE;
}

static PyObject *decode(const xmlChar *text, int intern) {
    const char *chars = text == NULL ? "" : (const char *)text;
    size_t length = strlen(chars);
    PyObject *value = PyUnicode_DecodeUTF8(chars, (Py_ssize_t)length, "strict");
    if (value == NULL || !intern || strings == NULL || length > MAX_INTERNED_LENGTH)
        return value;
    PyObject *shared = PyDict_SetDefault(strings, value, value);
    Py_XINCREF(shared);
    Py_DECREF(value);
    return shared;
}

/* The value of a plain attribute: its one text child (or none for ""). NULL with no error
 * set when the attribute is not plain (entity references kept, several children). */
static const xmlChar *plain_value(const xmlAttr *attribute) {
    const xmlNode *child = attribute->children;
    if (child == NULL)
        return (const xmlChar *)"";
    if (child->type != XML_TEXT_NODE || child->next != NULL)
        return NULL;
    return child->content != NULL ? child->content : (const xmlChar *)"";
}

/* The attributes `names` of `node` (values or NULL when absent). 0 when the element has a
 * namespaced or non-plain attribute: the caller then leaves the element to Python. */
static int get_attributes(const xmlNode *node, int count, const char *const *names,
                          const xmlChar **values) {
    for (int i = 0; i < count; i++)
        values[i] = NULL;
    for (const xmlAttr *a = node->properties; a != NULL; a = a->next) {
        if (a->ns != NULL)
            return 0;
        const xmlChar *value = plain_value(a);
        if (value == NULL)
            return 0;
        for (int i = 0; i < count; i++) {
            if (strcmp((const char *)a->name, names[i]) == 0) {
                values[i] = value;
                break;
            }
        }
    }
    return 1;
}

static PyObject *optional_text(const xmlChar *value, int intern) {
    if (value == NULL)
        Py_RETURN_NONE;
    return decode(value, intern);
}

/* A tuple of `count` new references (all consumed); NULL if any is NULL. Callers create the
 * items one at a time and stop at the first failure (no C-API call with an error set). */
static PyObject *pack(Py_ssize_t count, PyObject **items) {
    PyObject *tuple = NULL;
    for (Py_ssize_t i = 0; i < count; i++)
        if (items[i] == NULL)
            goto fail;
    if ((tuple = PyTuple_New(count)) == NULL)
        goto fail;
    for (Py_ssize_t i = 0; i < count; i++)
        PyTuple_SET_ITEM(tuple, i, items[i]);
    return tuple;
fail:
    for (Py_ssize_t i = 0; i < count; i++)
        Py_XDECREF(items[i]);
    return NULL;
}

/* Result codes of the readers below. */
#define OK 1
#define HAND_OVER 0 /* leave this element to the Python reader */
#define FAILED -1   /* a Python error is set */

static const char *const PORT_ATTRIBUTES[] = {"id", "precision", "names"};

/* The names attribute: () when absent or empty, (names,) for one plain name, else the text
 * (Python splits it at unescaped commas). */
static PyObject *port_names(const xmlChar *text) {
    if (text == NULL || *text == 0)
        return PyTuple_New(0);
    PyObject *names = decode(text, 0);
    if (names == NULL || strpbrk((const char *)text, ",\\") != NULL)
        return names;
    PyObject *one = PyTuple_Pack(1, names);
    Py_DECREF(names);
    return one;
}

/* One <port> -> (None, key, names, line): key = (id, precision, names is None, *dim texts);
 * walk_layers puts the cached signature of key in place of None after the walk. */
static int read_port(const xmlNode *port, long line_offset, PyObject *ports) {
    const xmlChar *values[3];
    if (port->line >= BIG_LINE || !get_attributes(port, 3, PORT_ATTRIBUTES, values))
        return HAND_OVER;
    Py_ssize_t dims = 0;
    for (const xmlNode *child = port->children; child != NULL; child = child->next) {
        if (child->type == XML_TEXT_NODE)
            continue;
        if (!is_named(child, "dim") || child->properties != NULL)
            return HAND_OVER; /* comments, rt_info...: Python's slow path */
        const xmlNode *text = child->children;
        if (text == NULL || text->type != XML_TEXT_NODE || text->next != NULL)
            return HAND_OVER;
        dims++;
    }
    PyObject *key = PyTuple_New(3 + dims);
    if (key == NULL)
        return FAILED;
    PyObject *item;
    if ((item = optional_text(values[0], 1)) == NULL)
        goto fail;
    PyTuple_SET_ITEM(key, 0, item);
    if ((item = optional_text(values[1], 1)) == NULL)
        goto fail;
    PyTuple_SET_ITEM(key, 1, item);
    item = values[2] == NULL ? Py_True : Py_False;
    Py_INCREF(item);
    PyTuple_SET_ITEM(key, 2, item);
    Py_ssize_t index = 3;
    for (const xmlNode *child = port->children; child != NULL; child = child->next) {
        if (child->type == XML_TEXT_NODE)
            continue;
        if ((item = decode(child->children->content, 1)) == NULL)
            goto fail;
        PyTuple_SET_ITEM(key, index++, item);
    }
    PyObject *items[4] = {Py_None, key, NULL, NULL};
    Py_INCREF(Py_None);
    if ((items[2] = port_names(values[2])) != NULL)
        items[3] = PyLong_FromLong((long)port->line + line_offset);
    PyObject *entry = pack(4, items);
    if (entry == NULL)
        return FAILED;
    int status = PyList_Append(ports, entry);
    Py_DECREF(entry);
    return status < 0 ? FAILED : OK;
fail:
    Py_DECREF(key);
    return FAILED;
}

/* The <port>s of an <input> or <output> (other children are skipped, as in Python). */
static int read_ports(const xmlNode *parent, long line_offset, PyObject *ports) {
    for (const xmlNode *child = parent->children; child != NULL; child = child->next) {
        if (child->type == XML_ELEMENT_NODE) {
            if (child->ns != NULL)
                return HAND_OVER;
            if (strcmp((const char *)child->name, "port") == 0) {
                int status = read_port(child, line_offset, ports);
                if (status != OK)
                    return status;
            }
        } else if (!is_skipped(child)) {
            return HAND_OVER;
        }
    }
    return OK;
}

/* <data>'s attributes as a dict in document order. */
static int read_data(const xmlNode *data, PyObject **result) {
    PyObject *attributes = PyDict_New();
    if (attributes == NULL)
        return FAILED;
    for (const xmlAttr *a = data->properties; a != NULL; a = a->next) {
        const xmlChar *value = plain_value(a);
        if (a->ns != NULL || value == NULL) {
            Py_DECREF(attributes);
            return HAND_OVER;
        }
        PyObject *name = decode(a->name, 1);
        PyObject *text = name == NULL ? NULL : decode(value, 1);
        int status = text == NULL ? -1 : PyDict_SetItem(attributes, name, text);
        Py_XDECREF(name);
        Py_XDECREF(text);
        if (status < 0) {
            Py_DECREF(attributes);
            return FAILED;
        }
    }
    Py_XDECREF(*result);
    *result = attributes;
    return OK;
}

/* A plain id: 1 to 18 ASCII digits. -1 otherwise. */
static long long plain_id(const xmlChar *text) {
    if (text == NULL)
        return -1;
    size_t length = strlen((const char *)text);
    if (length == 0 || length > 18)
        return -1;
    long long value = 0;
    for (size_t i = 0; i < length; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        value = value * 10 + (text[i] - '0');
    }
    return value;
}

/* What a layers() call reads with. */
typedef struct {
    long line_offset; /* added to every line */
    int fragment;     /* bare <layer> snippets: name and version may be absent */
    PyObject *input_cache, *output_cache; /* port signatures by key (reader._PORT_CACHES) */
} Walk;

/* Put cache[key] (when there) in place of the None that starts each port tuple of the
 * layer tuples in `result` (all made by this call and seen by no one else yet). */
static int fill_signatures(PyObject *result, const Walk *walk) {
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(result); i++) {
        PyObject *layer = PyList_GET_ITEM(result, i);
        if (!PyTuple_Check(layer))
            continue;
        for (int side = 0; side < 2; side++) {
            PyObject *ports = PyTuple_GET_ITEM(layer, side == 0 ? 8 : 9);
            PyObject *cache = side == 0 ? walk->input_cache : walk->output_cache;
            for (Py_ssize_t j = 0; j < PyList_GET_SIZE(ports); j++) {
                PyObject *port = PyList_GET_ITEM(ports, j);
                PyObject *signature = PyDict_GetItemWithError(cache, PyTuple_GET_ITEM(port, 1));
                if (signature == NULL) {
                    if (PyErr_Occurred())
                        return -1;
                    continue;
                }
                Py_INCREF(signature);
                PyObject *placeholder = PyTuple_GET_ITEM(port, 0);
                PyTuple_SET_ITEM(port, 0, signature);
                Py_DECREF(placeholder);
            }
        }
    }
    return 0;
}

static const char *const LAYER_ATTRIBUTES[] = {"id", "name", "type", "version", "output_names"};

/* One <layer> -> (id, name, type, version, line, output_names, data, data line, inputs,
 * outputs, child index); texts as written (None when absent), data None without <data>. */
static int read_layer(const xmlNode *layer, long index, const Walk *walk, PyObject **result) {
    const xmlChar *values[5];
    if (layer->line >= BIG_LINE || !get_attributes(layer, 5, LAYER_ATTRIBUTES, values))
        return HAND_OVER;
    /* What the Python reader raises for, or reads in a slower way, it reads itself. */
    long long id = plain_id(values[0]);
    if (id < 0 || values[2] == NULL || *values[2] == 0 ||
        (!walk->fragment && (values[1] == NULL || values[3] == NULL)))
        return HAND_OVER;
    long line_offset = walk->line_offset;
    PyObject *inputs = PyList_New(0), *outputs = PyList_New(0), *data = NULL;
    long data_line = -1;
    int status = (inputs == NULL || outputs == NULL) ? FAILED : OK;
    for (const xmlNode *child = layer->children; status == OK && child != NULL;
         child = child->next) {
        if (child->type != XML_ELEMENT_NODE) {
            if (!is_skipped(child))
                status = HAND_OVER;
        } else if (child->ns != NULL || child->line >= BIG_LINE) {
            status = HAND_OVER;
        } else if (strcmp((const char *)child->name, "input") == 0) {
            status = read_ports(child, line_offset, inputs);
        } else if (strcmp((const char *)child->name, "output") == 0) {
            status = read_ports(child, line_offset, outputs);
        } else if (strcmp((const char *)child->name, "data") == 0) {
            status = read_data(child, &data);
            data_line = (long)child->line + line_offset;
        } else {
            status = HAND_OVER; /* rt_info, bodies, port maps...: Python reads them */
        }
    }
    if (status == OK) {
        PyObject *items[11] = {NULL};
        const xmlChar *texts[4] = {values[1], values[2], values[3], values[4]};
        const int interned[4] = {0, 1, 1, 0}; /* name, type, version, output_names */
        int made = 0;
        if ((items[0] = PyLong_FromLongLong(id)) != NULL)
            made = 1;
        for (int i = 0; made && i < 3; i++)
            made = (items[1 + i] = optional_text(texts[i], interned[i])) != NULL;
        if (made && (items[4] = PyLong_FromLong((long)layer->line + line_offset)) == NULL)
            made = 0;
        if (made && (items[5] = optional_text(texts[3], interned[3])) == NULL)
            made = 0;
        if (made) {
            if (data == NULL) {
                Py_INCREF(Py_None);
                Py_INCREF(Py_None);
                items[6] = items[7] = Py_None;
            } else {
                items[6] = data;
                data = NULL; /* owned by items now */
                made = (items[7] = PyLong_FromLong(data_line)) != NULL;
            }
        }
        if (made) {
            Py_INCREF(inputs);
            Py_INCREF(outputs);
            items[8] = inputs;
            items[9] = outputs;
            items[10] = PyLong_FromLong(index);
        }
        *result = pack(11, items); /* releases what was made when something failed */
        if (*result == NULL)
            status = FAILED;
    }
    Py_XDECREF(inputs);
    Py_XDECREF(outputs);
    Py_XDECREF(data);
    return status;
}

/* The xmlNode of an lxml element (NULL with an error set for anything else). */
static xmlNode *element_node(PyObject *element) {
    xmlNode *node = NULL;
    if (PyObject_TypeCheck(element, (PyTypeObject *)element_type))
        node = ((ElementLayout *)element)->c_node;
    /* (lxml links each node to its one Python element through _private) */
    if (node == NULL || node->type != XML_ELEMENT_NODE || node->_private != (void *)element) {
        PyErr_SetString(PyExc_TypeError, "expected an lxml element");
        return NULL;
    }
    return node;
}

PyDoc_STRVAR(layers_doc,
"layers(parent, line_offset, fragment, input_cache, output_cache, interned) -> list or None\n\n"
"One item per <layer> child of `parent`: a tuple (id, name, type, version, line,\n"
"output_names, data, data_line, inputs, outputs, index) where inputs/outputs are lists of\n"
"(signature, key, names, line): key = (port id, precision, names is None, *dim texts),\n"
"signature = the cache's value for key (looked up after the walk) or None, names a tuple\n"
"or a text to split. Or the\n"
"layer's child index (an int) when the Python reader must read it. None when `parent`\n"
"holds anything but <layer> elements, comments and blanks. Short texts are interned in\n"
"`interned` (a dict the caller empties when it is done).");

static PyObject *walk_children(const xmlNode *node, const Walk *walk, PyObject *result);

static PyObject *walk_layers(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *parent, *interned;
    Walk walk;
    if (!PyArg_ParseTuple(args, "OlpO!O!O!:layers", &parent, &walk.line_offset, &walk.fragment,
                          &PyDict_Type, &walk.input_cache, &PyDict_Type, &walk.output_cache,
                          &PyDict_Type, &interned))
        return NULL;
    xmlNode *node = element_node(parent);
    PyObject *result = node == NULL ? NULL : PyList_New(0);
    if (result == NULL)
        return NULL;
    PyObject *outer_strings = strings; /* (restored below; a walk never runs Python code) */
    strings = interned;
    result = walk_children(node, &walk, result);
    strings = outer_strings;
    if (result != NULL && result != Py_None && fill_signatures(result, &walk) < 0)
        Py_CLEAR(result);
    return result;
}

/* The loop of walk_layers: fills and returns `result` (a new reference it takes over), or
 * returns None or NULL (error) after releasing it. */
static PyObject *walk_children(const xmlNode *node, const Walk *walk, PyObject *result) {
    long index = 0; /* child index as lxml counts them: elements, comments and PIs */
    for (const xmlNode *child = node->children; child != NULL; child = child->next) {
        if (child->type == XML_TEXT_NODE)
            continue;
        if (child->type == XML_COMMENT_NODE || child->type == XML_PI_NODE) {
            index++;
            continue;
        }
        if (!is_named(child, "layer")) {
            Py_DECREF(result);
            Py_RETURN_NONE;
        }
        PyObject *item = NULL;
        int status = read_layer(child, index, walk, &item);
        if (status == FAILED) {
            Py_DECREF(result);
            return NULL;
        }
        if (status == HAND_OVER && (item = PyLong_FromLong(index)) == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        int appended = PyList_Append(result, item);
        Py_DECREF(item);
        if (appended < 0) {
            Py_DECREF(result);
            return NULL;
        }
        index++;
    }
    return result;
}

static const char *const EDGE_ATTRIBUTES[] = {"from-layer", "from-port", "to-layer", "to-port"};

PyDoc_STRVAR(edges_doc,
"edges(parent, line_offset) -> list or None\n\n"
"(from_layer, from_port, to_layer, to_port, line) for each <edge> child of `parent`;\n"
"None when any child is not a plainly written <edge> (the Python reader then reads them).");

static PyObject *walk_edges(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *parent;
    long line_offset;
    if (!PyArg_ParseTuple(args, "Ol:edges", &parent, &line_offset))
        return NULL;
    xmlNode *node = element_node(parent);
    PyObject *result = node == NULL ? NULL : PyList_New(0);
    if (result == NULL)
        return NULL;
    for (const xmlNode *child = node->children; child != NULL; child = child->next) {
        if (is_skipped(child))
            continue;
        const xmlChar *values[4];
        long long ids[4];
        if (!is_named(child, "edge") || child->line >= BIG_LINE ||
            !get_attributes(child, 4, EDGE_ATTRIBUTES, values))
            goto hand_over;
        for (int i = 0; i < 4; i++)
            if ((ids[i] = plain_id(values[i])) < 0)
                goto hand_over;
        PyObject *edge = Py_BuildValue("(LLLLl)", ids[0], ids[1], ids[2], ids[3],
                                       (long)child->line + line_offset);
        if (edge == NULL || PyList_Append(result, edge) < 0) {
            Py_XDECREF(edge);
            Py_DECREF(result);
            return NULL;
        }
        Py_DECREF(edge);
    }
    return result;
hand_over:
    Py_DECREF(result);
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"layers", walk_layers, METH_VARARGS, layers_doc},
    {"edges", walk_edges, METH_VARARGS, edges_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "irrun.ir._walk",
    "Reading plainly written IR layers and edges from lxml's tree (optional accelerator).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__walk(void) {
    PyObject *etree = PyImport_ImportModule("lxml.etree");
    if (etree == NULL)
        return NULL;
    element_type = PyObject_GetAttrString(etree, "_Element");
    Py_DECREF(etree);
    if (element_type == NULL)
        return NULL;
    /* struct LxmlElement: PyObject_HEAD, _doc, _c_node, _tag. Another size means another
     * layout: refuse to load (the reader then reads everything in Python). */
    if (!PyType_Check(element_type) ||
        ((PyTypeObject *)element_type)->tp_basicsize !=
            (Py_ssize_t)(sizeof(ElementLayout) + sizeof(PyObject *))) {
        Py_CLEAR(element_type);
        PyErr_SetString(PyExc_ImportError, "lxml's element layout is not the one expected");
        return NULL;
    }
    PyObject *module = PyModule_Create(&module_def);
    if (module == NULL)
        Py_CLEAR(element_type);
    return module;
}
