"""``<rt_info>`` of layers, ports and models, as plain dicts."""

from __future__ import annotations

__all__ = ["read_rt_info", "read_model_rt_info"]


def read_rt_info(element) -> dict:
    """Layer/port ``<rt_info>``: ``{name: value}`` for each ``<attribute>``; other attributes of
    an entry (``layout="[N,C,H,W]"``) come as a dict. Unknown entries are kept as they are."""
    info = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue
        name = child.get("name", child.tag)
        extra = {k: v for k, v in child.attrib.items() if k not in ("name", "version")}
        if len(child):
            info[name] = read_rt_info(child)
        elif set(extra) == {"value"}:
            info[name] = extra["value"]
        else:
            info[name] = extra
    return info


def read_model_rt_info(element) -> dict:
    """Model ``<rt_info>``: element names are keys, ``value`` attributes values, nesting kept."""
    info = {}
    for child in element:
        if not isinstance(child.tag, str):
            continue
        key = child.get("name", child.tag) if child.tag == "info" else child.tag
        info[key] = read_model_rt_info(child) if len(child) else child.get("value")
    return info
