/*
 * irrun.ir._walk: the records of plainly written <layer> and <edge> elements, read straight
 * from the libxml2 tree that lxml parsed, without creating an lxml proxy object per element.
 *
 * An optional accelerator of irrun/ir/layers.py and irrun/ir/edges.py: for each layer it gives
 * exactly the tuple that layers.layer_record() gives (edges.edge_record() for edges), and the
 * Python reader turns both into a Layer the same way; the Python functions are the
 * specification. Only the common form (what OpenVINO writes) is read here; anything else in a
 * layer (rt_info, bodies, comments inside ports, entity references, namespaces, lines that
 * libxml2 cannot store in 16 bits, a missing id...) hands that layer back to the Python
 * reader, which also raises every error.
 *
 * lxml is used only through its public C API: the headers it installs (lxml.etree_api.h with
 * struct LxmlElement, imported by import_lxml__etree()) and libxml2's own tree API. The module
 * refuses to load (ImportError; the reader then runs in pure Python) when lxml's C API cannot
 * be imported, when its element type is not the struct this file was compiled with, or when
 * the libxml2 this file was compiled against is not the one lxml runs with.
 *
 * The tree is only read, with the GIL held, while the caller holds the element (and so its
 * document) alive; no Python code runs during a walk (only str hashing and comparison, in
 * C), so nothing can change the tree under it. All state of a call is in its Walk.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>
#include <libxml/tree.h>
#include <libxml/xmlversion.h>
#include "lxml.etree_api.h"

/* libxml2 keeps 16 bits of line per node; this value means "at or past 65535". */
#define BIG_LINE 65535
/* Texts up to this length are shared through the caller's dict (types, dims, values...). */
#define MAX_SHARED_LENGTH 64

static PyTypeObject *element_type = NULL; /* lxml.etree._Element, set once at import */

/* What one layers() call reads with. */
typedef struct {
    long line_offset; /* added to every line */
    int fragment;     /* bare <layer> snippets: name and version may be absent */
    PyObject *texts;  /* the caller's dict sharing short texts within one load */
} Walk;

/* Result codes of the readers below. */
#define OK 1
#define HAND_OVER 0 /* leave this element to the Python reader */
#define FAILED -1   /* a Python error is set */

static int is_named(const xmlNode *node, const char *name) {
    return node->type == XML_ELEMENT_NODE && node->ns == NULL &&
           strcmp((const char *)node->name, name) == 0;
}

/* Text, comments and processing instructions are skipped between elements. */
static int is_skipped(const xmlNode *node) {
    return node->type == XML_TEXT_NODE || node->type == XML_COMMENT_NODE ||
           node->type == XML_PI_NODE;
}

static PyObject *decode(const Walk *walk, const xmlChar *text, int share) {
    const char *chars = text == NULL ? "" : (const char *)text;
    size_t length = strlen(chars);
    PyObject *value = PyUnicode_DecodeUTF8(chars, (Py_ssize_t)length, "strict");
    if (value == NULL || !share || walk == NULL || length > MAX_SHARED_LENGTH)
        return value;
    PyObject *shared = PyDict_SetDefault(walk->texts, value, value);
    Py_XINCREF(shared);
    Py_DECREF(value);
    return shared;
}

static PyObject *optional_text(const Walk *walk, const xmlChar *value, int share) {
    if (value == NULL)
        Py_RETURN_NONE;
    return decode(walk, value, share);
}

/* The value of a plain attribute: its one text child (or none for ""). NULL when the
 * attribute is not plain (entity references kept, several children). */
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

static const char *const PORT_ATTRIBUTES[] = {"id", "precision", "names"};

/* One <port> -> (key, names, line, None) as ports.port_record() gives it:
 * key = (id, precision, names is None, *dim texts). */
static int read_port(const xmlNode *port, const Walk *walk, PyObject *ports) {
    const xmlChar *values[3];
    if (port->line >= BIG_LINE || !get_attributes(port, 3, PORT_ATTRIBUTES, values))
        return HAND_OVER;
    Py_ssize_t dims = 0;
    for (const xmlNode *child = port->children; child != NULL; child = child->next) {
        if (child->type == XML_TEXT_NODE)
            continue;
        if (!is_named(child, "dim") || child->properties != NULL)
            return HAND_OVER; /* comments, rt_info...: Python reads them */
        const xmlNode *text = child->children;
        if (text == NULL || text->type != XML_TEXT_NODE || text->next != NULL)
            return HAND_OVER;
        dims++;
    }
    PyObject *key = PyTuple_New(3 + dims);
    if (key == NULL)
        return FAILED;
    PyObject *item;
    if ((item = optional_text(walk, values[0], 1)) == NULL)
        goto fail;
    PyTuple_SET_ITEM(key, 0, item);
    if ((item = optional_text(walk, values[1], 1)) == NULL)
        goto fail;
    PyTuple_SET_ITEM(key, 1, item);
    item = values[2] == NULL ? Py_True : Py_False;
    Py_INCREF(item);
    PyTuple_SET_ITEM(key, 2, item);
    Py_ssize_t index = 3;
    for (const xmlNode *child = port->children; child != NULL; child = child->next) {
        if (child->type == XML_TEXT_NODE)
            continue;
        if ((item = decode(walk, child->children->content, 1)) == NULL)
            goto fail;
        PyTuple_SET_ITEM(key, index++, item);
    }
    PyObject *items[4] = {key, NULL, NULL, Py_None};
    Py_INCREF(Py_None);
    if ((items[1] = optional_text(walk, values[2], 0)) != NULL)
        items[2] = PyLong_FromLong((long)port->line + walk->line_offset);
    PyObject *record = pack(4, items);
    if (record == NULL)
        return FAILED;
    int status = PyList_Append(ports, record);
    Py_DECREF(record);
    return status < 0 ? FAILED : OK;
fail:
    Py_DECREF(key);
    return FAILED;
}

/* The <port>s of an <input> or <output> (other children are skipped, as in Python). */
static int read_ports(const xmlNode *parent, const Walk *walk, PyObject *ports) {
    for (const xmlNode *child = parent->children; child != NULL; child = child->next) {
        if (child->type == XML_ELEMENT_NODE) {
            if (child->ns != NULL)
                return HAND_OVER;
            if (strcmp((const char *)child->name, "port") == 0) {
                int status = read_port(child, walk, ports);
                if (status != OK)
                    return status;
            }
        } else if (!is_skipped(child)) {
            return HAND_OVER;
        }
    }
    return OK;
}

/* <data>'s attributes as a dict in document order (a later <data> replaces it). */
static int read_data(const xmlNode *data, const Walk *walk, PyObject **result) {
    PyObject *attributes = PyDict_New();
    if (attributes == NULL)
        return FAILED;
    for (const xmlAttr *a = data->properties; a != NULL; a = a->next) {
        const xmlChar *value = plain_value(a);
        if (a->ns != NULL || value == NULL) {
            Py_DECREF(attributes);
            return HAND_OVER;
        }
        PyObject *name = decode(walk, a->name, 1);
        PyObject *text = name == NULL ? NULL : decode(walk, value, 1);
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

/* The children of a <layer>: its ports and <data>. */
typedef struct {
    PyObject *inputs, *outputs, *data;
    long data_line;
} Parts;

static int read_parts(const xmlNode *layer, const Walk *walk, Parts *parts) {
    int status = OK;
    for (const xmlNode *child = layer->children; status == OK && child != NULL;
         child = child->next) {
        if (child->type != XML_ELEMENT_NODE) {
            if (!is_skipped(child))
                status = HAND_OVER;
        } else if (child->ns != NULL || child->line >= BIG_LINE) {
            status = HAND_OVER;
        } else if (strcmp((const char *)child->name, "input") == 0) {
            status = read_ports(child, walk, parts->inputs);
        } else if (strcmp((const char *)child->name, "output") == 0) {
            status = read_ports(child, walk, parts->outputs);
        } else if (strcmp((const char *)child->name, "data") == 0) {
            status = read_data(child, walk, &parts->data);
            parts->data_line = (long)child->line + walk->line_offset;
        } else {
            status = HAND_OVER; /* rt_info, bodies, port maps...: Python reads them */
        }
    }
    return status;
}

static const char *const LAYER_ATTRIBUTES[] = {"id", "name", "type", "version", "output_names"};

/* One <layer> -> (id, name, type, version, output_names, line, data, data line, inputs,
 * outputs, extras) as layers.layer_record() gives it (extras always () here). */
static int read_layer(const xmlNode *layer, const Walk *walk, PyObject **result) {
    const xmlChar *values[5];
    if (layer->line >= BIG_LINE || !get_attributes(layer, 5, LAYER_ATTRIBUTES, values))
        return HAND_OVER;
    /* What the Python reader raises for, it reads itself. */
    long long id = plain_id(values[0]);
    if (id < 0 || values[2] == NULL || *values[2] == 0 ||
        (!walk->fragment && (values[1] == NULL || values[3] == NULL)))
        return HAND_OVER;
    Parts parts = {PyList_New(0), PyList_New(0), NULL, -1};
    int status = (parts.inputs == NULL || parts.outputs == NULL) ? FAILED
                                                                  : read_parts(layer, walk, &parts);
    if (status == OK) {
        PyObject *items[11] = {NULL};
        const int shared[4] = {0, 1, 1, 0}; /* name, type, version, output_names */
        int made = (items[0] = PyLong_FromLongLong(id)) != NULL;
        for (int i = 0; made && i < 4; i++)
            made = (items[1 + i] = optional_text(walk, values[1 + i], shared[i])) != NULL;
        if (made)
            made = (items[5] = PyLong_FromLong((long)layer->line + walk->line_offset)) != NULL;
        if (made && parts.data == NULL) {
            Py_INCREF(Py_None);
            Py_INCREF(Py_None);
            items[6] = items[7] = Py_None;
        } else if (made) {
            items[6] = parts.data;
            parts.data = NULL; /* owned by items now */
            made = (items[7] = PyLong_FromLong(parts.data_line)) != NULL;
        }
        if (made) {
            items[8] = parts.inputs;
            items[9] = parts.outputs;
            parts.inputs = parts.outputs = NULL; /* owned by items now */
            items[10] = PyTuple_New(0);
        }
        *result = pack(11, items); /* releases what was made when something failed */
        if (*result == NULL)
            status = FAILED;
    }
    Py_XDECREF(parts.inputs);
    Py_XDECREF(parts.outputs);
    Py_XDECREF(parts.data);
    return status;
}

/* The xmlNode of an lxml element (NULL with an error set for anything else). */
static xmlNode *element_node(PyObject *element) {
    xmlNode *node = NULL;
    if (PyObject_TypeCheck(element, element_type))
        node = ((struct LxmlElement *)element)->_c_node;
    if (node == NULL || node->type != XML_ELEMENT_NODE) {
        PyErr_SetString(PyExc_TypeError, "expected an lxml element");
        return NULL;
    }
    return node;
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
        int status = read_layer(child, walk, &item);
        if (status == HAND_OVER)
            item = PyLong_FromLong(index);
        if (status == FAILED || item == NULL) {
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

PyDoc_STRVAR(layers_doc,
"layers(parent, line_offset, fragment, texts) -> list or None\n\n"
"One item per <layer> child of `parent`: the tuple irrun.ir.layers.layer_record() gives for\n"
"it, or its child index (an int, counting elements, comments and PIs) when the Python reader\n"
"must read it. None when `parent` holds anything but <layer> elements, comments and blanks.\n"
"Short texts are shared through `texts` (a dict kept for one load).");

static PyObject *walk_layers(PyObject *Py_UNUSED(module), PyObject *args) {
    PyObject *parent;
    Walk walk;
    if (!PyArg_ParseTuple(args, "OlpO!:layers", &parent, &walk.line_offset, &walk.fragment,
                          &PyDict_Type, &walk.texts))
        return NULL;
    xmlNode *node = element_node(parent);
    PyObject *result = node == NULL ? NULL : PyList_New(0);
    if (result == NULL)
        return NULL;
    return walk_children(node, &walk, result);
}

static const char *const EDGE_ATTRIBUTES[] = {"from-layer", "from-port", "to-layer", "to-port"};

PyDoc_STRVAR(edges_doc,
"edges(parent, line_offset) -> list or None\n\n"
"The tuple irrun.ir.edges.edge_record() gives for each <edge> child of `parent`; None when\n"
"any child is not a plainly written <edge> (the Python reader then reads them all).");

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
    "Records of plainly written IR layers and edges from lxml's tree (optional accelerator).",
    -1, methods, NULL, NULL, NULL, NULL,
};

/* 0 when lxml runs with the libxml2 this file was compiled against (LIBXML_VERSION, e.g.
 * 21406 for 2.14.6); -1 with an ImportError saying both versions otherwise. */
static int check_libxml2(PyObject *etree) {
    PyObject *running = PyObject_GetAttrString(etree, "LIBXML_VERSION");
    int major = -1, minor = -1, patch = -1;
    if (running == NULL || !PyTuple_Check(running) ||
        !PyArg_ParseTuple(running, "iii", &major, &minor, &patch)) {
        Py_XDECREF(running);
        PyErr_Clear();
        PyErr_SetString(PyExc_ImportError, "lxml.etree.LIBXML_VERSION is not (major, minor, "
                                           "patch)");
        return -1;
    }
    Py_DECREF(running);
    if (major * 10000 + minor * 100 + patch != LIBXML_VERSION) {
        PyErr_Format(PyExc_ImportError,
                     "compiled against libxml2 %s, but lxml runs with libxml2 %d.%d.%d; "
                     "rebuild irrun (pip install -e .) to use the accelerator",
                     LIBXML_DOTTED_VERSION, major, minor, patch);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC PyInit__walk(void) {
    if (import_lxml__etree() < 0) /* lxml's C API: its functions, checked by signature */
        return NULL;
    PyObject *etree = PyImport_ImportModule("lxml.etree");
    if (etree == NULL)
        return NULL;
    PyObject *type = check_libxml2(etree) < 0 ? NULL : PyObject_GetAttrString(etree, "_Element");
    Py_DECREF(etree);
    if (type == NULL)
        return NULL;
    /* The element type must be the public struct LxmlElement this file was compiled with. */
    if (!PyType_Check(type) ||
        ((PyTypeObject *)type)->tp_basicsize != (Py_ssize_t)sizeof(struct LxmlElement)) {
        Py_DECREF(type);
        PyErr_SetString(PyExc_ImportError,
                        "lxml's element type is not the struct LxmlElement of lxml's C API "
                        "headers this module was compiled with; rebuild irrun");
        return NULL;
    }
    element_type = (PyTypeObject *)type; /* kept for the life of the process */
    PyObject *module = PyModule_Create(&module_def);
    if (module != NULL &&
        PyModule_AddIntConstant(module, "LIBXML_COMPILED_VERSION", LIBXML_VERSION) < 0)
        Py_CLEAR(module);
    return module;
}
