/* page_stride.c - is the Zen 5 guest's slower DRAM-scale write path a per-page cost
 * (translation) or a per-byte one? Non-temporal stores (fill 0x5a) over the
 * whole buffer, one line per 4 KiB page, 8 lines per page, and one load per
 * page, at footprints 64 MiB-1 GiB, best of 5; argument 1 = THP pages.
 * Build: gcc -O2 -o page_stride page_stride.c (data/native/README.md). */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <stdint.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
__attribute__((target("avx512f"))) static void nt_stride(char *b, size_t n, size_t stride, size_t per){
  __m512i z=_mm512_set1_epi8(0x5a);
  for(size_t o=0;o<n;o+=stride) for(size_t k=0;k<per;k+=64) _mm512_stream_si512((void*)(b+o+k),z);
  _mm_sfence();
}
static uint64_t ld_stride(char *b,size_t n,size_t stride){uint64_t s=0;for(size_t o=0;o<n;o+=stride)s+=*(volatile uint64_t*)(b+o);return s;}
int main(int argc,char**argv){
  size_t sizes[]={64<<20,128<<20,256<<20,512<<20,1ul<<30};
  int huge = argc>1 && atoi(argv[1]);
  for(int i=0;i<5;i++){size_t n=sizes[i];
    char*b=mmap(0,n,PROT_READ|PROT_WRITE,MAP_PRIVATE|MAP_ANONYMOUS,-1,0);
    madvise(b,n,huge?MADV_HUGEPAGE:MADV_NOHUGEPAGE); memset(b,1,n);
    double best[4]={1e9,1e9,1e9,1e9};
    for(int r=0;r<5;r++){
      double t0=now(); nt_stride(b,n,64,64); double t1=now(); if(t1-t0<best[0])best[0]=t1-t0;
      t0=now(); nt_stride(b,n,4096,64); t1=now(); if(t1-t0<best[1])best[1]=t1-t0;
      t0=now(); nt_stride(b,n,4096,512); t1=now(); if(t1-t0<best[2])best[2]=t1-t0;
      t0=now(); volatile uint64_t s=ld_stride(b,n,4096); (void)s; t1=now(); if(t1-t0<best[3])best[3]=t1-t0;
    }
    double pages=n/4096.0;
    printf("%5zu MiB huge=%d: NT full %.1f GiB/s | NT 1 line/page %.1f ns/page | NT 8 lines/page %.1f ns/page | load 1/page %.1f ns/page\n",
      n>>20,huge,n/best[0]/(1<<30),best[1]/pages*1e9,best[2]/pages*1e9,best[3]/pages*1e9);
    munmap(b,n);}
}
