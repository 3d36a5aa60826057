#ifndef PFMTOP_VIEW_H
#define PFMTOP_VIEW_H
int view_placeholder(void);
#endif
