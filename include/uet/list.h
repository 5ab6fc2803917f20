/* Intrusive doubly linked lists, for the engine and the provider alike:
 * O(1) unlink from the middle (cancel, matching) and no allocation. A node
 * that is not on a list points to itself, so "is it queued?" is one
 * comparison and a second del is harmless.
 */
#ifndef UET_LIST_H
#define UET_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct uet_list {
	struct uet_list *next, *prev;
};

#define uet_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Iterate while allowing the current node to be unlinked. */
#define uet_list_foreach_safe(pos, tmp, head) \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
	     (pos) = (tmp), (tmp) = (pos)->next)

static inline void uet_list_init(struct uet_list *l)
{
	l->next = l->prev = l;
}

static inline bool uet_list_empty(const struct uet_list *l)
{
	return l->next == l;
}

/* For a node: is it on some list? */
static inline bool uet_list_linked(const struct uet_list *n)
{
	return n->next != n;
}

static inline void uet_list_add_tail(struct uet_list *head, struct uet_list *n)
{
	n->prev = head->prev;
	n->next = head;
	head->prev->next = n;
	head->prev = n;
}

/* Push n at the front: free lists are LIFO, so the descriptor just
 * released, still in cache, is the next one used. */
static inline void uet_list_add(struct uet_list *head, struct uet_list *n)
{
	uet_list_add_tail(head->next, n);
}

/* Unlink n (a no-op when it is not linked) and leave it self-linked. */
static inline void uet_list_del(struct uet_list *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	uet_list_init(n);
}

static inline struct uet_list *uet_list_first(const struct uet_list *head)
{
	return uet_list_empty(head) ? NULL : head->next;
}

static inline struct uet_list *uet_list_pop(struct uet_list *head)
{
	struct uet_list *n = uet_list_first(head);

	if (n)
		uet_list_del(n);
	return n;
}

#endif
